/* The smallest C program: a target tasklet that doubles a vector on the first OpenCL device (or
 * on a CPU when there is none), then a host tasklet that reads the result. */
#include <conveyor/conveyor.h>
#include <stdio.h>
#include <string.h>

static int twice_on_host(void* const* args, int nargs) {
  float* x = args[0];
  int n = *(const int*)args[1];
  (void)nargs;
  for (int i = 0; i < n; ++i) x[i] *= 2;
  return 0;
}

static int print_first(void* const* args, int nargs) {
  (void)nargs;
  printf("x[0] = %g\n", *(const float*)args[0]);
  return 0;
}

int main(void) {
  conveyor_options options;
  conveyor_options_init(&options);
  options.cpus = 1;
  if (strstr(conveyor_device_list(), "opencl:0")) options.devices = "opencl:0";
  conveyor_runtime* rt = conveyor_runtime_create(&options);
  if (!rt) {
    fprintf(stderr, "%s\n", conveyor_last_error());
    return 1;
  }

  conveyor_kernel_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.name = "twice";
  desc.opencl_source =
      "__kernel void twice(__global float* x, int n) { x[get_global_id(0)] *= 2; }";
  desc.host = twice_on_host; /* runs it on a CPU when no device takes it */
  desc.global_size[0] = 1000;
  conveyor_kernel* twice = conveyor_kernel_create(rt, &desc);
  if (!twice) {
    fprintf(stderr, "%s\n", conveyor_last_error());
    conveyor_runtime_destroy(rt);
    return 1;
  }

  float x[1000];
  int n = 1000;
  for (int i = 0; i < n; ++i) x[i] = 1.0f;
  conveyor_map_desc map = conveyor_make_map_desc(x, 0, sizeof x, CONVEYOR_MAP_TOFROM);
  conveyor_arg args[] = {conveyor_arg_map(0), conveyor_arg_value(&n, sizeof n)};
  void* dep = x;
  conveyor_status status =
      conveyor_tasklet_target_create(rt, twice, 2, args, 0, NULL, 1, &dep, 1, &map, 1);
  void* print_args[] = {x};
  if (status == CONVEYOR_OK)
    status = conveyor_tasklet_create(rt, print_first, 1, print_args, 1, &dep, 0, NULL);
  if (status == CONVEYOR_OK) status = conveyor_wait(rt); /* x is in host memory again */
  if (status != CONVEYOR_OK) fprintf(stderr, "%s\n", conveyor_last_error());
  conveyor_runtime_destroy(rt);
  return status == CONVEYOR_OK && x[999] == 2.0f ? 0 : 1;
}
