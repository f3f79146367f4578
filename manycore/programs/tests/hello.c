/* Every node says hello: the smallest SPMD program. */
#include <stdio.h>

#include "mcore.h"

int main(void) {
  printf("hello from node %d of %d (%dx%d)\n", MC_node_id(), MC_nodes(), MC_width(), MC_height());
  return 0;
}
