/* Integer arithmetic, memory access widths, control flow and printf, printed so that the output
 * can be compared line by line with the same source compiled for the host. Only behaviour that
 * C defines is printed (no signed overflow, no implementation-defined shifts). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcore.h"

static volatile int32_t vals[] = {0, 1, -1, 7, -7, 12345, -98765, 2147483647, (-2147483647 - 1)};
#define NV (int)(sizeof(vals) / sizeof(vals[0]))

static int cmp(const void* a, const void* b) {
  int32_t x = *(const int32_t*)a, y = *(const int32_t*)b;
  return (x > y) - (x < y);
}

static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(void) {
  uint32_t hash = 2166136261u;
  for (int i = 0; i < NV; ++i) {
    for (int j = 0; j < NV; ++j) {
      int32_t a = vals[i], b = vals[j];
      uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
      int64_t wide = (int64_t)a * (int64_t)b;
      uint64_t uwide = (uint64_t)ua * (uint64_t)ub;
      hash = (hash ^ (ua * ub)) * 16777619u;
      hash = (hash ^ (uint32_t)(wide >> 32)) * 16777619u;
      hash = (hash ^ (uint32_t)(uwide >> 32)) * 16777619u;
      if (b != 0 && !(a == (-2147483647 - 1) && b == -1)) {
        hash = (hash ^ (uint32_t)(a / b)) * 16777619u;
        hash = (hash ^ (uint32_t)(a % b)) * 16777619u;
      }
      if (ub != 0) hash = (hash ^ (ua / ub) ^ (ua % ub)) * 16777619u;
      hash = (hash ^ (ua << (ub & 31)) ^ (ua >> (ub & 31))) * 16777619u;
      hash = (hash ^ (uint32_t)(a < b) ^ ((uint32_t)(ua < ub) << 1)) * 16777619u;
    }
    printf("v[%d]=%ld sq=%lld neg=%lu half=%d byte=%d\n", i, (long)vals[i],
           (long long)vals[i] * vals[i], (unsigned long)(0u - (uint32_t)vals[i]), (int16_t)vals[i],
           (int8_t)vals[i]);
  }
  printf("hash %08lx\n", (unsigned long)hash);

  uint8_t bytes[16];
  for (int i = 0; i < 16; ++i) bytes[i] = (uint8_t)(i * 37 + 200);
  uint16_t h;
  uint32_t w;
  memcpy(&h, bytes + 6, 2);
  memcpy(&w, bytes + 8, 4);
  printf("bytes %u %d half %u word %08lx\n", bytes[3], (int8_t)bytes[3], h, (unsigned long)w);

  int32_t sorted[32];
  uint32_t seed = 12345;
  for (int i = 0; i < 32; ++i) {
    seed = seed * 1103515245u + 12345u;
    sorted[i] = (int32_t)(seed >> 8) - (1 << 22);
  }
  qsort(sorted, 32, sizeof(sorted[0]), cmp);
  printf("sorted %ld %ld %ld\n", (long)sorted[0], (long)sorted[15], (long)sorted[31]);
  printf("fib(20)=%lu strlen=%u\n", (unsigned long)fib(20), (unsigned)strlen("conveyor"));
  char buf[64];
  snprintf(buf, sizeof(buf), "%5d|%-5d|%x|%o|%c|%s", 42, -42, 0xbeef, 8, 'z', "ok");
  printf("%s\n", buf);
  return 0;
}
