/* Memory-mapped registers of a node; the simulator's src/manycore/machine/mmio.hpp holds the same
 * numbers. */
#ifndef MCORE_MMIO_H
#define MCORE_MMIO_H

#define MC_MMIO_BASE 0xF0000000u
#define MC_REG_NODE_ID 0x00u
#define MC_REG_MESH_WIDTH 0x04u
#define MC_REG_MESH_HEIGHT 0x08u
#define MC_REG_CYCLE 0x0Cu
#define MC_REG_CONSOLE 0x10u
#define MC_REG_EXIT 0x14u
#define MC_REG_BARRIER 0x18u
#define MC_REG_ROI 0x1Cu
#define MC_REG_DMA_NODE 0x20u
#define MC_REG_DMA_REMOTE 0x24u
#define MC_REG_DMA_LOCAL 0x28u
#define MC_REG_DMA_SIZE 0x2Cu
#define MC_REG_DMA_CMD 0x30u
#define MC_REG_DMA_WAIT 0x34u
#define MC_REG_MEM_NODE 0x38u

#define MC_CMD_PUT 1u
#define MC_CMD_GET 2u
#define MC_CMD_BLOCKING 0x100u

#endif
