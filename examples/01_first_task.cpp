// The smallest program: register a vector, run a task on it, get the result back.
#include <conveyor/conveyor.hpp>
#include <cstdio>
#include <vector>

int main() {
  conveyor::Runtime rt;  // one pinned worker per core, no devices
  std::vector<float> v(1000, 1.0f);
  conveyor::Data x = rt.register_vector(v.data(), v.size(), "x");

  conveyor::Codelet twice("twice");
  twice.cpu([](const conveyor::TaskContext& t) {
    float* p = t.data<float>(0);
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) p[i] *= 2;
  });
  rt.submit(twice, {{x, conveyor::Access::ReadWrite}});
  rt.unregister(x);  // waits for the task; v holds the latest values

  std::printf("v[0] = %g\n", v[0]);
  return v[0] == 2.0f ? 0 : 1;
}
