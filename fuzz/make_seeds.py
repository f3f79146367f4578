#!/usr/bin/env python3
"""Writes the binary seeds of fuzz/corpus/: tiny RV32IM programs as ELF files (elf_loader/) and
their code as raw instruction words (decoder/), and fixed pseudo-random bytes for the C interface
harness (capi_arguments/). Assembled here by hand, so that the seeds need no RISC-V cross
compiler; run again after changing a program (the other seeds are plain files):

    python3 fuzz/make_seeds.py    # rewrites fuzz/corpus/{elf_loader,decoder,capi_arguments}/seed_*
"""
import os
import random
import struct

MMIO = 0xF0000000  # src/manycore/machine/mmio.hpp
CONSOLE, EXIT, MEM_NODE = 0x10, 0x14, 0x38
DMA_NODE, DMA_REMOTE, DMA_LOCAL, DMA_SIZE, DMA_CMD, DMA_WAIT = 0x20, 0x24, 0x28, 0x2C, 0x30, 0x34
PUT, GET, BLOCKING = 1, 2, 0x100


def r(funct7, rs2, rs1, funct3, rd, opcode=0x33):
    return funct7 << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode


def i(imm, rs1, funct3, rd, opcode=0x13):
    assert -2048 <= imm < 2048
    return (imm & 0xFFF) << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode


def s(imm, rs2, rs1, funct3=2):
    imm &= 0xFFF
    return (imm >> 5) << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | (imm & 0x1F) << 7 | 0x23


def b(offset, rs2, rs1, funct3):
    o = offset & 0x1FFF
    return ((o >> 12) << 31 | ((o >> 5) & 0x3F) << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12
            | ((o >> 1) & 0xF) << 8 | ((o >> 11) & 1) << 7 | 0x63)


def lui(rd, value):
    return (value & 0xFFFFF000) | rd << 7 | 0x37


def lw(rd, imm, rs1):
    return i(imm, rs1, 2, rd, 0x03)


T0, T1, T2, A0 = 5, 6, 7, 10

# Prints "hi" on the console and exits with 0.
hello = [lui(T0, MMIO)]
for ch in b"hi\n":
    hello += [i(ch, 0, 0, T1), s(CONSOLE, T1, T0)]
hello += [s(EXIT, 0, T0)]

# Sums 1..10 in a loop, multiplies and divides (by zero too: RISC-V defines it), stores the sum
# in the data segment at 0x1000 and exits with 0 when it is 55.
loop = [
    lui(T0, MMIO),
    i(0, 0, 0, A0),  # a0 = 0
    i(10, 0, 0, T1),  # t1 = 10
    r(0, T1, A0, 0, A0),  # loop: a0 += t1
    i(-1, T1, 0, T1),  # t1 -= 1
    b(-8, 0, T1, 1),  # bne t1, x0, loop
    r(1, A0, A0, 0, T2),  # mul t2, a0, a0
    r(1, 0, T2, 4, T2),  # div t2, t2, x0 (= -1)
    lui(T1, 0x1000),
    s(0, A0, T1),  # sw a0, 0(t1)
    lw(T2, 0, T1),
    i(-55, T2, 0, A0),  # a0 = sum - 55
    s(EXIT, A0, T0),
]

# Writes 64 bytes to main memory with a blocking DMA PUT, waits, exits with 0.
dma = [
    lui(T0, MMIO),
    lw(T1, MEM_NODE, T0), s(DMA_NODE, T1, T0),
    s(DMA_REMOTE, 0, T0),
    lui(T1, 0x1000), s(DMA_LOCAL, T1, T0),
    i(64, 0, 0, T1), s(DMA_SIZE, T1, T0),
    i(PUT | BLOCKING, 0, 0, T1), s(DMA_CMD, T1, T0),
    lw(T1, DMA_WAIT, T0),
    s(EXIT, 0, T0),
]


def elf(code, data=b"", data_memsz=0):
    """ELF32 little-endian RISC-V executable: code at 0 (entry), data at 0x1000."""
    text = b"".join(struct.pack("<I", w) for w in code)
    phnum = 2 if data_memsz else 1
    header_size, phdr_size = 52, 32
    text_off = header_size + phnum * phdr_size
    data_off = text_off + len(text)
    ident = b"\x7fELF" + bytes([1, 1, 1]) + bytes(9)
    header = ident + struct.pack("<HHIIIIIHHHHHH", 2, 243, 1, 0, header_size, 0, 0, header_size,
                                 phdr_size, phnum, 40, 0, 0)
    phdrs = struct.pack("<IIIIIIII", 1, text_off, 0, 0, len(text), len(text), 5, 4)  # PT_LOAD R+X
    if data_memsz:
        phdrs += struct.pack("<IIIIIIII", 1, data_off, 0x1000, 0x1000, len(data), data_memsz, 6, 4)
    return header + phdrs + text + data


here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
programs = {
    "hello": elf(hello),
    "loop": elf(loop, b"", 64),  # data all zero (memsz > filesz: a .bss)
    "dma": elf(dma, bytes(range(64)), 128),
}
for name, image in programs.items():
    os.makedirs(os.path.join(here, "elf_loader"), exist_ok=True)
    with open(os.path.join(here, "elf_loader", f"seed_{name}.elf"), "wb") as f:
        f.write(image)
codes = {"hello": hello, "loop": loop, "dma": dma}
for name, code in codes.items():
    os.makedirs(os.path.join(here, "decoder"), exist_ok=True)
    with open(os.path.join(here, "decoder", f"seed_{name}.bin"), "wb") as f:
        f.write(b"".join(struct.pack("<I", w) for w in code))

# The C interface harness reads its input as FuzzedDataProvider choices (strings from the front,
# numbers from the back): fixed pseudo-random bytes give it a few sequences of calls to start from.
rng = random.Random(2025)
os.makedirs(os.path.join(here, "capi_arguments"), exist_ok=True)
for n, length in enumerate((48, 96, 160, 256)):
    with open(os.path.join(here, "capi_arguments", f"seed_{n}.bin"), "wb") as f:
        f.write(bytes(rng.randrange(256) for _ in range(length)))
