// A codelet with a CPU and an OpenCL implementation; the "offload" scheduler runs it on the OpenCL
// device and the runtime copies the data there and back. Without an OpenCL device, the CPUs run it.
#include <CL/cl.h>

#include <conveyor/conveyor.hpp>
#include <cstdio>
#include <vector>

int main() {
  conveyor::RuntimeOptions options;
  options.cpus = 1;
  for (const auto& d : conveyor::all_devices())
    if (d->info().id == "opencl:0") options.devices = {"opencl:0"};
  if (!options.devices.empty()) {
    options.scheduler = "offload";
    options.offload = {"saxpy"};
  }
  conveyor::Runtime rt(options);

  conveyor::Codelet saxpy("saxpy");  // y = 2 x + y
  saxpy.cpu([](const conveyor::TaskContext& t) {
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i)
      t.data<float>(1)[i] += 2 * t.data<float>(0)[i];
  });
  saxpy.opencl({.source = "__kernel void saxpy(__global const float* x, __global float* y) {\n"
                          "  size_t i = get_global_id(0); y[i] += 2.0f * x[i]; }",
                .kernel = "saxpy"},
               [](const conveyor::TaskContext& t) {
                 auto kernel = static_cast<cl_kernel>(t.opencl_kernel());
                 cl_mem x = t.opencl_mem(0), y = t.opencl_mem(1);
                 clSetKernelArg(kernel, 0, sizeof x, &x);
                 clSetKernelArg(kernel, 1, sizeof y, &y);
                 std::size_t n = t.buffer(0).rows;
                 cl_int err =
                     clEnqueueNDRangeKernel(static_cast<cl_command_queue>(t.opencl_queue()), kernel,
                                            1, nullptr, &n, nullptr, 0, nullptr, nullptr);
                 if (err != CL_SUCCESS) throw conveyor::DeviceError("saxpy launch failed");
               });

  std::vector<float> x(4096, 1.0f), y(4096, 0.0f);
  conveyor::Data dx = rt.register_vector(x.data(), x.size(), "x");
  conveyor::Data dy = rt.register_vector(y.data(), y.size(), "y");
  for (int k = 0; k < 3; ++k)
    rt.submit(saxpy, {{dx, conveyor::Access::Read}, {dy, conveyor::Access::ReadWrite}});
  rt.wait_all();  // y is valid only on the device until here: wait_all writes it back
  conveyor::RuntimeStats s = rt.stats();
  std::printf("%s: y[0] = %g, %llu H2D and %llu D2H copies\n",
              options.devices.empty() ? "cpu" : "opencl:0", y[0],
              static_cast<unsigned long long>(s.h2d_copies),
              static_cast<unsigned long long>(s.d2h_copies));
  return y[0] == 6.0f ? 0 : 1;
}
