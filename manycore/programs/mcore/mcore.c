/* The mcore runtime on the simulated node: every call is a few loads and stores to the node's
 * memory-mapped registers. */
#include "mcore.h"

#include <stdio.h>

#define REG(offset) (*(volatile uint32_t*)(MC_MMIO_BASE + (offset)))

static int node_id, width, height;

void MC_init(void) {
  node_id = (int)REG(MC_REG_NODE_ID);
  width = (int)REG(MC_REG_MESH_WIDTH);
  height = (int)REG(MC_REG_MESH_HEIGHT);
}
int MC_node_id(void) { return node_id; }
int MC_nodes(void) { return width * height; }
int MC_width(void) { return width; }
int MC_height(void) { return height; }
int MC_mem_node(void) { return (int)REG(MC_REG_MEM_NODE); }

static void dma(uint32_t cmd, int node, const void* remote, const void* local, uint32_t size) {
  REG(MC_REG_DMA_NODE) = (uint32_t)node;
  REG(MC_REG_DMA_REMOTE) = (uint32_t)(uintptr_t)remote;
  REG(MC_REG_DMA_LOCAL) = (uint32_t)(uintptr_t)local;
  REG(MC_REG_DMA_SIZE) = size;
  REG(MC_REG_DMA_CMD) = cmd;
}

void MC_dma_put(int dst, void* dst_addr, const void* src, uint32_t size) {
  dma(MC_CMD_PUT | MC_CMD_BLOCKING, dst, dst_addr, src, size);
}
void MC_dma_get(int src, void* dst, const void* src_addr, uint32_t size) {
  dma(MC_CMD_GET | MC_CMD_BLOCKING, src, src_addr, dst, size);
}
void MC_dma_put_nowait(int dst, void* dst_addr, const void* src, uint32_t size) {
  dma(MC_CMD_PUT, dst, dst_addr, src, size);
}
void MC_dma_get_nowait(int src, void* dst, const void* src_addr, uint32_t size) {
  dma(MC_CMD_GET, src, src_addr, dst, size);
}
void MC_dma_wait(void) { (void)REG(MC_REG_DMA_WAIT); }
void MC_barrier(void) { (void)REG(MC_REG_BARRIER); }
void MC_roi_begin(void) { REG(MC_REG_ROI) = 1; }
void MC_roi_end(void) { REG(MC_REG_ROI) = 0; }
uint32_t MC_cycle(void) { return REG(MC_REG_CYCLE); }

void MC_putc(char c) { REG(MC_REG_CONSOLE) = (uint32_t)(unsigned char)c; }
void MC_puts(const char* s) {
  while (*s) MC_putc(*s++);
}
void MC_exit(int code) {
  REG(MC_REG_EXIT) = (uint32_t)code;
  for (;;) {
  }
}
void _exit(int code) { MC_exit(code); }

/* picolibc's stdio: printf writes through the console register. */
static int mc_stdio_put(char c, FILE* file) {
  (void)file;
  MC_putc(c);
  return (unsigned char)c;
}
static FILE mc_stdio = FDEV_SETUP_STREAM(mc_stdio_put, NULL, NULL, _FDEV_SETUP_WRITE);
FILE* const stdin = &mc_stdio;
FILE* const stdout = &mc_stdio;
FILE* const stderr = &mc_stdio;
