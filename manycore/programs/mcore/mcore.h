/* mcore: the runtime of the Conveyor manycore simulator (seed 002's M-Core API).
 *
 * One program runs on every node (SPMD). A node's core loads and stores only its own local
 * memory; other nodes' memories and main memory are reached by DMA:
 *
 *   MC_init();
 *   int next = (MC_node_id() + 1) % MC_nodes();
 *   MC_dma_put(next, inbox, buf, sizeof(buf));   // blocking: returns when the data arrived
 *   MC_barrier();
 *
 * Build: riscv64-unknown-elf-gcc -march=rv32im -mabi=ilp32 -O2 --specs=picolibc.specs
 *        -nostartfiles -T mcore.ld -I DIR crt0.S mcore.c prog.c -o prog.elf   (see docs/sim.md)
 */
#ifndef MCORE_H
#define MCORE_H

#include <stdint.h>

#include "mcore_mmio.h"

#ifdef __cplusplus
extern "C" {
#endif

void MC_init(void);
int MC_node_id(void);
int MC_nodes(void);
int MC_width(void);
int MC_height(void);
/* The node id that names main memory in DMA calls (one past the last core). */
int MC_mem_node(void);

/* Blocking transfers: PUT returns when the data has been written at dst (acknowledged); GET
 * when the data is in local memory. With the store-buffer proposal the core may run past a
 * blocking PUT; the hardware keeps the program's view unchanged. */
void MC_dma_put(int dst, void* dst_addr, const void* src, uint32_t size);
void MC_dma_get(int src, void* dst, const void* src_addr, uint32_t size);
/* Non-blocking: the caller must not touch the buffers until MC_dma_wait() returned. */
void MC_dma_put_nowait(int dst, void* dst_addr, const void* src, uint32_t size);
void MC_dma_get_nowait(int src, void* dst, const void* src_addr, uint32_t size);
void MC_dma_wait(void);

/* Waits for this node's stores and DMA, then for every node. */
void MC_barrier(void);
/* The region of interest: the simulator reports cycles and stalls between begin and end. */
void MC_roi_begin(void);
void MC_roi_end(void);
uint32_t MC_cycle(void);

void MC_putc(char c);
void MC_puts(const char* s); /* no newline added */
void MC_exit(int code) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif
#endif
