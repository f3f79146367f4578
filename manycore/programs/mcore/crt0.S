/* Start-up: the simulator sets sp to the top of local memory and loads .data; clear .bss, call
 * main, exit with its return value. */
  .section .text.init, "ax"
  .globl _start
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la t0, __bss_start
  la t1, __bss_end
1:
  bgeu t0, t1, 2f
  sw zero, 0(t0)
  addi t0, t0, 4
  j 1b
2:
  call MC_init
  li a0, 0
  li a1, 0
  call main
  call MC_exit
