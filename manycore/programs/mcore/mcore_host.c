/* The mcore API on the host, one node: lets the same C source run natively so that its output
 * can be compared with the simulator's (tests/integration/test_cli_sim.cpp). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcore.h"

void MC_init(void) {}
int MC_node_id(void) { return 0; }
int MC_nodes(void) { return 1; }
int MC_width(void) { return 1; }
int MC_height(void) { return 1; }
int MC_mem_node(void) { return 1; }
void MC_dma_put(int dst, void* dst_addr, const void* src, uint32_t size) {
  (void)dst;
  memmove(dst_addr, src, size);
}
void MC_dma_get(int src, void* dst, const void* src_addr, uint32_t size) {
  (void)src;
  memmove(dst, src_addr, size);
}
void MC_dma_put_nowait(int dst, void* dst_addr, const void* src, uint32_t size) {
  MC_dma_put(dst, dst_addr, src, size);
}
void MC_dma_get_nowait(int src, void* dst, const void* src_addr, uint32_t size) {
  MC_dma_get(src, dst, src_addr, size);
}
void MC_dma_wait(void) {}
void MC_barrier(void) {}
void MC_roi_begin(void) {}
void MC_roi_end(void) {}
uint32_t MC_cycle(void) { return 0; }
void MC_putc(char c) { putchar(c); }
void MC_puts(const char* s) { fputs(s, stdout); }
void MC_exit(int code) {
  fflush(stdout);
  exit(code);
}
