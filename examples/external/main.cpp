// The C++ interface from outside the tree: a codelet on a registered vector, on the CPUs.
#include <conveyor/conveyor.hpp>
#include <cstdio>
#include <vector>

int main() {
  conveyor::RuntimeOptions options;
  options.cpus = 1;
  options.pin = false;
  conveyor::Runtime rt(options);
  std::vector<double> v(1000, 1.5);
  conveyor::Data x = rt.register_vector(v.data(), v.size(), "x");
  conveyor::Codelet square("square");
  square.cpu([](const conveyor::TaskContext& t) {
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) t.data<double>(0)[i] *= t.data<double>(0)[i];
  });
  rt.submit(square, {{x, conveyor::Access::ReadWrite}});
  rt.unregister(x);
  std::printf("c++ api: v[999] = %g on %zu device(s)\n", v[999], conveyor::all_devices().size());
  return v[999] == 2.25 ? 0 : 1;
}
