/* Programs that misbehave on purpose, one per FAULT_* define: the simulator must stop each with
 * one line naming node, pc and cause. */
#include <stdint.h>

#include "mcore.h"

int main(void) {
#if defined(FAULT_illegal)
  if (MC_node_id() == 1) __asm__ volatile(".word 0xffffffff");
#elif defined(FAULT_misaligned)
  volatile uint32_t* p = (volatile uint32_t*)(uintptr_t)0x1002;
  if (MC_node_id() == 2) return (int)*p;
#elif defined(FAULT_outside)
  volatile uint32_t* p = (volatile uint32_t*)(uintptr_t)0x20000000;
  if (MC_node_id() == 0) *p = 1;
#elif defined(FAULT_badnode)
  static uint32_t word = 1;
  if (MC_node_id() == 3) MC_dma_put(MC_nodes() + 5, &word, &word, 4);
#elif defined(FAULT_deadlock)
  if (MC_node_id() != 0) MC_barrier();
#elif defined(FAULT_hang)
  for (;;) {
  }
#endif
  MC_barrier();
  return 0;
}
