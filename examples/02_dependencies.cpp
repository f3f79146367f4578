// Dependencies come from the order of submission and the access modes: the reader waits for the
// writer (RAW), the second writer for the reader (WAR), and so on. No explicit edges.
#include <conveyor/conveyor.hpp>
#include <cstdio>

int main() {
  conveyor::RuntimeOptions options;
  options.cpus = 2;
  conveyor::Runtime rt(options);
  long a = 0, b = 0;
  conveyor::Data da = rt.register_vector(&a, 1, "a");
  conveyor::Data db = rt.register_vector(&b, 1, "b");

  conveyor::Codelet set("set"), copy_plus_one("copy_plus_one");
  set.cpu([](const conveyor::TaskContext& t) { *t.data<long>(0) = t.args<long>(); });
  copy_plus_one.cpu(
      [](const conveyor::TaskContext& t) { *t.data<long>(1) = *t.data<long>(0) + 1; });

  long forty = 40;
  rt.submit(set, {{da, conveyor::Access::Write}}, 0, "a = 40", std::as_bytes(std::span(&forty, 1)));
  rt.submit(copy_plus_one, {{da, conveyor::Access::Read}, {db, conveyor::Access::Write}});  // RAW
  long zero = 0;
  rt.submit(set, {{da, conveyor::Access::Write}}, 0, "a = 0",  // WAR: after the read above
            std::as_bytes(std::span(&zero, 1)));
  rt.wait_all();
  std::printf("a = %ld, b = %ld\n", a, b);
  return a == 0 && b == 41 ? 0 : 1;
}
