/* Runs one tasklet on every device present (CPUs, OpenCL devices; CUDA devices need a launch
 * function compiled by nvcc, so this program skips them) and checks its result. */
#include <conveyor/conveyor.h>
#include <stdio.h>
#include <string.h>

enum { kCount = 4096 };

static int add_one_on_host(void* const* args, int nargs) {
  float* x = args[0];
  (void)nargs;
  for (int i = 0; i < kCount; ++i) x[i] += 1.0f;
  return 0;
}

/* 0 when the tasklet ran on `device` and x holds the right values. */
static int run_on(const char* device) {
  conveyor_options options;
  conveyor_options_init(&options);
  options.pin = 0;
  if (strcmp(device, "cpu") == 0) {
    options.cpus = 1;
  } else {
    options.cpus = 0; /* device workers only: the tasklet cannot run anywhere else */
    options.devices = device;
  }
  conveyor_runtime* rt = conveyor_runtime_create(&options);
  if (!rt) {
    fprintf(stderr, "%s: %s\n", device, conveyor_last_error());
    return 1;
  }
  conveyor_kernel_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.name = "add_one";
  desc.host = add_one_on_host;
  desc.opencl_source = "__kernel void add_one(__global float* x) { x[get_global_id(0)] += 1; }";
  desc.global_size[0] = kCount;
  conveyor_kernel* kernel = conveyor_kernel_create(rt, &desc);
  static float x[kCount];
  for (int i = 0; i < kCount; ++i) x[i] = (float)i;
  conveyor_map_desc map = conveyor_make_map_desc(x, 0, sizeof x, CONVEYOR_MAP_TOFROM);
  conveyor_arg arg = conveyor_arg_map(0);
  void* dep = x;
  conveyor_status status =
      kernel ? conveyor_tasklet_target_create(rt, kernel, 1, &arg, 0, NULL, 1, &dep, 1, &map, 1)
             : CONVEYOR_ERROR_INVALID_ARGUMENT;
  if (status == CONVEYOR_OK) status = conveyor_wait(rt);
  conveyor_stats stats;
  conveyor_get_stats(rt, &stats);
  if (status != CONVEYOR_OK) fprintf(stderr, "%s: %s\n", device, conveyor_last_error());
  conveyor_runtime_destroy(rt);
  int wrong = 0;
  for (int i = 0; i < kCount; ++i) wrong += x[i] != (float)i + 1.0f;
  printf("%s: %s (%llu tasklet, %llu H2D, %llu D2H)\n", device,
         status == CONVEYOR_OK && !wrong ? "ok" : "FAILED", (unsigned long long)stats.tasks,
         (unsigned long long)stats.h2d_copies, (unsigned long long)stats.d2h_copies);
  return status != CONVEYOR_OK || wrong != 0 || stats.tasks != 1;
}

int main(void) {
  char devices[256];
  int failed = 0;
  printf("conveyor %s, devices %s\n", conveyor_version(), conveyor_device_list());
  strncpy(devices, conveyor_device_list(), sizeof devices - 1);
  devices[sizeof devices - 1] = '\0';
  for (char* id = strtok(devices, ","); id; id = strtok(NULL, ",")) {
    if (strncmp(id, "cuda", 4) == 0) {
      printf("%s: skipped (no CUDA launch function in this program)\n", id);
      continue;
    }
    failed |= run_on(id);
  }
  return failed;
}
