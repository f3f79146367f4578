// The same task flow on every MPI rank (run: mpirun -np 2 example_07_distributed): each rank owns
// one counter; a task adds a neighbour's counter to its own, so it runs on its owner and the
// neighbour's value arrives by a message the layer infers from the Read access.
#include <conveyor/conveyor.hpp>
#include <conveyor/distributed.hpp>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  conveyor::MpiSession mpi(&argc, &argv);
  conveyor::RuntimeOptions options;
  options.cpus = 1;
  options.pin = false;
  conveyor::Runtime rt(options);
  conveyor::Distributed dist(rt);
  const int n = dist.size();

  std::vector<long> mine(1, dist.rank() + 1);  // memory only for the counter this rank owns
  std::vector<conveyor::DistributedData> counter;
  for (int r = 0; r < n; ++r)
    counter.push_back(dist.register_vector(r == dist.rank() ? mine.data() : nullptr, 1, r));

  conveyor::Codelet add("add");  // x[0] += y[0]
  add.cpu([](const conveyor::TaskContext& t) { *t.data<long>(0) += *t.data<long>(1); });
  for (int r = 0; r < n; ++r)  // every rank submits every task; each runs on one rank
    dist.submit(add, {{counter[r], conveyor::Access::ReadWrite},
                      {counter[(r + 1) % n], conveyor::Access::Read}});
  dist.wait_all();  // collective

  // Sequentially: c_r += c_(r+1) for r = 0..n-1, in that order (c_0 is updated before c_(n-1)
  // reads it).
  std::vector<long> c(n);
  for (int r = 0; r < n; ++r) c[r] = r + 1;
  for (int r = 0; r < n; ++r) c[r] += c[(r + 1) % n];
  std::printf("rank %d: counter %ld (expected %ld), %llu messages received\n", dist.rank(), mine[0],
              c[dist.rank()], static_cast<unsigned long long>(dist.stats().messages_received));
  for (auto& d : counter) dist.unregister(d);
  return mine[0] == c[dist.rank()] ? 0 : 1;
}
