/* Programs that misbehave on purpose, one per FAULT_* define: the simulator must stop each with
 * one line naming node, pc and cause. */
#include <stdint.h>

#include "mcore.h"

int main(void) {
#if defined(FAULT_illegal)
  if (MC_node_id() == 1) __asm__ volatile(".word 0xffffffff");
#elif defined(FAULT_misaligned)
  /* In assembly: the compiler would split a misaligned C access into byte loads. */
  uint32_t v = 0, addr = 0x1002;
  if (MC_node_id() == 2) __asm__ volatile("lw %0, 0(%1)" : "=r"(v) : "r"(addr));
  if (v == 12345) return 3;
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
