// acquire() gives the host the latest contents of one data in the middle of a task graph, without
// waiting for everything (wait_all) or unregistering.
#include <conveyor/conveyor.hpp>
#include <cstdio>

int main() {
  conveyor::RuntimeOptions options;
  options.cpus = 2;
  conveyor::Runtime rt(options);
  int counter = 0;
  conveyor::Data c = rt.register_vector(&counter, 1, "counter");
  conveyor::Codelet inc("inc");
  inc.cpu([](const conveyor::TaskContext& t) { ++*t.data<int>(0); });

  for (int k = 0; k < 10; ++k) rt.submit(inc, {{c, conveyor::Access::ReadWrite}});
  int seen = 0;
  {
    conveyor::HostAccess h = rt.acquire(c, conveyor::Access::Read);  // waits for the 10 tasks
    seen = *h.as<int>();
  }  // released: later tasks may run
  rt.submit(inc, {{c, conveyor::Access::ReadWrite}});
  rt.wait_all();
  std::printf("seen %d, final %d\n", seen, counter);
  return seen == 10 && counter == 11 ? 0 : 1;
}
