#pragma once
// MD5 (RFC 1321). md5_compress and md5_64 (one 64-byte message: the message block, then a constant
// padding block of 0x80, zeros and the bit length 512) are plain C++ that CUDA also compiles for
// the device, so the GPU kernel, the CPU probe and the OpenCL checks share one tested algorithm.
// md5_bytes hashes a message of any length (host only), for the RFC 1321 test suite.
#include <cstddef>
#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define CONVEYOR_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define CONVEYOR_HOST_DEVICE inline
#endif
#ifdef __CUDA_ARCH__  // the device pass only: host compilers warn on the pragma
#define CONVEYOR_UNROLL _Pragma("unroll")
#else
#define CONVEYOR_UNROLL
#endif

namespace conveyor::core {

CONVEYOR_HOST_DEVICE void md5_compress(std::uint32_t state[4], const std::uint32_t m[16]) {
  // K[i] = floor(abs(sin(i + 1)) * 2^32); S: the per-round rotations. Local so that device code may
  // use them; full unrolling turns every index into a constant.
  constexpr std::uint32_t k[64] = {
      0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
      0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
      0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
      0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
      0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
      0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
      0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
      0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
      0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
      0xeb86d391};
  constexpr int s[16] = {7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21};
  std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  CONVEYOR_UNROLL
  for (int i = 0; i < 64; ++i) {
    std::uint32_t f;
    int g;
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) % 16;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) % 16;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) % 16;
    }
    f += a + k[i] + m[g];
    const int r = s[(i / 16) * 4 + i % 4];
    a = d;
    d = c;
    c = b;
    b += (f << r) | (f >> (32 - r));
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
}

/// `message`: the 64 bytes as 16 little-endian words. `digest`: 4 words whose little-endian bytes
/// are the 16-byte MD5 digest.
CONVEYOR_HOST_DEVICE void md5_64(const std::uint32_t message[16], std::uint32_t digest[4]) {
  digest[0] = 0x67452301;
  digest[1] = 0xefcdab89;
  digest[2] = 0x98badcfe;
  digest[3] = 0x10325476;
  md5_compress(digest, message);
  const std::uint32_t padding[16] = {0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 512, 0};
  md5_compress(digest, padding);
}

/// Reads 16 little-endian words from 64 bytes, whatever the host's byte order.
inline void md5_load_words(const std::uint8_t* bytes, std::uint32_t words[16]) {
  for (int i = 0; i < 16; ++i)
    words[i] = std::uint32_t{bytes[4 * i]} | std::uint32_t{bytes[4 * i + 1]} << 8 |
               std::uint32_t{bytes[4 * i + 2]} << 16 | std::uint32_t{bytes[4 * i + 3]} << 24;
}

/// Writes the 4 state words as the 16 digest bytes (little-endian).
inline void md5_store_digest(const std::uint32_t state[4], std::uint8_t digest[16]) {
  for (int i = 0; i < 16; ++i) digest[i] = static_cast<std::uint8_t>(state[i / 4] >> (8 * (i % 4)));
}

/// MD5 digest of `length` bytes at `data` (any length), host only.
inline void md5_bytes(const std::uint8_t* data, std::size_t length, std::uint8_t digest[16]) {
  std::uint32_t state[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  std::uint32_t words[16];
  std::size_t done = 0;
  for (; length - done >= 64; done += 64) {
    md5_load_words(data + done, words);
    md5_compress(state, words);
  }
  // The tail, 0x80, zeros up to 56 mod 64, then the bit length: one or two final blocks.
  std::uint8_t tail[128] = {};
  std::size_t rest = length - done;
  if (rest) std::memcpy(tail, data + done, rest);
  tail[rest] = 0x80;
  std::size_t blocks = rest < 56 ? 1 : 2;
  std::uint64_t bits = static_cast<std::uint64_t>(length) * 8;
  for (int i = 0; i < 8; ++i)
    tail[blocks * 64 - 8 + i] = static_cast<std::uint8_t>(bits >> (8 * i));
  for (std::size_t b = 0; b < blocks; ++b) {
    md5_load_words(tail + 64 * b, words);
    md5_compress(state, words);
  }
  md5_store_digest(state, digest);
}

}  // namespace conveyor::core
