/*
 * The accumulation of the AMX-INT8 indirect GEMMs (TDPBUSD on tiles, 16 rows x 64 columns, k
 * interleave 4, A biased by 128): the s8-igemm kernel
 * (src/s8-igemm/s8-igemm-abias128-16x64c4-amx.c) and its fused forms
 * (src/qu8-igemm/qu8-igemm-abias128-16x64c4-amx.c) include this.
 *
 * Why it is exact. TDPBUSD multiplies unsigned bytes of its first source by signed bytes of its
 * second, four products per int32 element, and adds them to the element modulo 2^32 (no
 * saturation), the arithmetic of VPDPBUSD: the kernels multiply u = (int8_t) (byte ^ a_sign) +
 * 128 = byte ^ a_sign ^ 0x80 by the packed int8 weights, and create folds 128 x (the column's
 * weight sum) into the bias as for the AVX-512 VNNI kernel of the same a_bias.
 *
 * Why 16 x 64. The eight tile registers hold four C tiles of 16 rows x 16 int32 columns (a 16x64
 * block), one A tile (16 rows x 64 bytes) and three B tiles (16 k quads x 16 columns x 4 bytes),
 * the fourth B tile reusing the first register: one A tile serves four TDPBUSD of 16K
 * multiply-adds each.
 *
 * A. Rows are not strided (one pointer per pixel and tap), so a block of 16 rows is gathered per
 * tap and 64 k into aligned 16x64-byte blocks with one masked load, XOR and store per row: bytes
 * past kc load as 0 and stay 0, rows past the block's are 0. A row block's gathered A (up to
 * kQwinoAmxMaxABlocks blocks, 2048 bytes of K a row) serves every panel of the call; deeper
 * layers gather it again per panel, in chunks of that size.
 *
 * B. Packed B with KR = 4 is TDPBUSD's B layout already: per k quad, 64 columns x 4 bytes are
 * 256 contiguous bytes, so the B tile of columns 16j..16j+15 and 64 k of a tap is 16 rows of 64
 * bytes, 256 bytes apart, at offset 64j. A tap whose kc is not a multiple of 64 ends in a block
 * of fewer k quads than a B tile's 16 rows: its rows are copied into a zero-filled block, so
 * nothing is read past the tap's round_up(kc, 4) x 64 bytes (the next tap's rows would meet A's
 * zeros, but past the panel's last tap lies memory the caller did not give).
 *
 * Tile state. A call checks the thread's tile configuration at entry and loads its own where it
 * differs: other code of the thread (another library's AMX kernels) may change it between calls,
 * and every AMX user configures the tiles before using them. It leaves the tiles configured: a
 * release and the next call's load cost about 300 cycles a call, a third of a 16x64x256 block's
 * multiplies, and the OS saves a thread's tile data on a context switch only while it is in use.
 * The process must have the OS's permission for the tile data state (arch_prctl, src/init.cc).
 */
#ifndef QWINO_S8_IGEMM_ABIAS128_16X64C4_AMX_H_
#define QWINO_S8_IGEMM_ABIAS128_16X64C4_AMX_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define QWINO_AMX_INLINE static inline __attribute__((always_inline))

enum {
  kQwinoAmxMR = 16,
  kQwinoAmxNR = 64,
  kQwinoAmxKBlock = 64,
  kQwinoAmxQuadBytes = kQwinoAmxNR * 4, /* packed B per k quad */
  kQwinoAmxMaxABlocks = 32
};

/* The layout LDTILECFG reads (palette 1). */
struct qwino_amx_tile_config {
  uint8_t palette;
  uint8_t start_row;
  uint8_t reserved[14];
  uint16_t bytes_per_row[16];
  uint8_t rows[16];
};

/* Tiles 0-3: C (16 x 16 int32), 4: A (16 x 64 bytes), 5-7: B (16 quads x 64 bytes). Loaded only
 * where the thread's configuration differs (LDTILECFG waits for every tile instruction before
 * it: about 300 cycles, where STTILECFG and a compare take a third of that). */
QWINO_AMX_INLINE void qwino_amx_configure(void) {
  struct qwino_amx_tile_config config, current;
  memset(&config, 0, sizeof(config));
  config.palette = 1;
  for (int t = 0; t < 8; t++) {
    config.bytes_per_row[t] = 64;
    config.rows[t] = 16;
  }
  _tile_storeconfig(&current);
  if (memcmp(&config, &current, sizeof(config)) != 0) {
    _tile_loadconfig(&config);
  }
}

/* The working memory of one call: gathered A, the B tail blocks. */
struct qwino_amx_buffers {
  __attribute__((aligned(64))) uint8_t a[kQwinoAmxMaxABlocks][kQwinoAmxMR][kQwinoAmxKBlock];
  __attribute__((aligned(64))) int8_t b_tail[4][16][64];
};

/* Where a block of A and B starts: its tap and first k (block b of a row: tap b / blocks per
 * tap, k from 64 (b % blocks per tap)); qwino_amx_next steps to the next block. */
struct qwino_amx_block {
  size_t t, k0;
};
QWINO_AMX_INLINE struct qwino_amx_block qwino_amx_block_of(size_t b, size_t kc) {
  const size_t blocks_per_tap = (kc + kQwinoAmxKBlock - 1) / kQwinoAmxKBlock;
  const struct qwino_amx_block block = {b / blocks_per_tap, b % blocks_per_tap * kQwinoAmxKBlock};
  return block;
}
QWINO_AMX_INLINE void qwino_amx_next(struct qwino_amx_block* block, size_t kc) {
  block->k0 += kQwinoAmxKBlock;
  if (block->k0 >= kc) {
    block->k0 = 0;
    block->t++;
  }
}

/* Gathers A blocks [first, first + count) of a row block into buffers->a[0, count). */
QWINO_AMX_INLINE void qwino_amx_gather(size_t mr, size_t kc, size_t ks, const uint8_t* const* a,
                                       size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                                       size_t first, size_t count,
                                       struct qwino_amx_buffers* buffers) {
  const __m512i flip = _mm512_set1_epi8((char)(a_sign ^ 0x80));
  struct qwino_amx_block block = qwino_amx_block_of(first, kc);
  for (size_t b = 0; b < count; b++, qwino_amx_next(&block, kc)) {
    const size_t k_bytes = kc - block.k0 < kQwinoAmxKBlock ? kc - block.k0 : kQwinoAmxKBlock;
    const __mmask64 mask =
        k_bytes == kQwinoAmxKBlock ? ~(__mmask64)0 : ((__mmask64)1 << k_bytes) - 1;
    const __m512i row_flip = _mm512_maskz_mov_epi8(mask, flip);
    for (size_t i = 0; i < kQwinoAmxMR; i++) {
      __m512i bytes = _mm512_setzero_si512();
      if (i < mr) {
        const uint8_t* row = a[i * ks + block.t];
        row = row == zero ? zero : row + a_offset;
        bytes = _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, row + block.k0), row_flip);
      }
      _mm512_store_si512(buffers->a[b][i], bytes);
    }
  }
}

/* C tiles += A blocks [first, first + count) times the panel's B, for the panel's first
 * `column_tiles` tiles of 16 columns. Block b's A tile is 16 rows a_stride bytes apart from
 * a_tiles + (b - first) a_block_step: the gathered blocks (a_block_step 1024, a_stride 64) or
 * the operator's gathered rows (64, the row stride). A tap's blocks follow each other in the
 * panel: 16 k quads of 256 bytes, the tap's last one round_up(kc % 64, 4) / 4 quads where
 * kc % 64 != 0. */
QWINO_AMX_INLINE void qwino_amx_multiply(size_t kc, const int8_t* panel, size_t column_tiles,
                                         size_t first, size_t count, const uint8_t* a_tiles,
                                         size_t a_block_step, size_t a_stride,
                                         struct qwino_amx_buffers* buffers) {
  const size_t tap_bytes = (kc + 3) / 4 * kQwinoAmxQuadBytes;
  struct qwino_amx_block position = qwino_amx_block_of(first, kc);
  const int8_t* block = panel + position.t * tap_bytes + position.k0 / 4 * kQwinoAmxQuadBytes;
  for (size_t b = 0; b < count; b++) {
    _tile_loadd(4, a_tiles + b * a_block_step, a_stride);
    const int8_t* tiles = block;
    size_t stride = kQwinoAmxQuadBytes, tile_step = 64;
    size_t quads = 16;
    if (kc - position.k0 < kQwinoAmxKBlock) {
      quads = (kc - position.k0 + 3) / 4;
      for (size_t j = 0; j < column_tiles; j++) {
        for (size_t q = 0; q < quads; q++) {
          memcpy(buffers->b_tail[j][q], block + q * kQwinoAmxQuadBytes + j * 64, 64);
        }
      }
      tiles = &buffers->b_tail[0][0][0];
      stride = 64;
      tile_step = 16 * 64;
    }
    block += quads * kQwinoAmxQuadBytes;
    qwino_amx_next(&position, kc);
    _tile_loadd(5, tiles, stride);
    _tile_dpbusd(0, 4, 5);
    if (column_tiles > 1) {
      _tile_loadd(6, tiles + tile_step, stride);
      _tile_dpbusd(1, 4, 6);
    }
    if (column_tiles > 2) {
      _tile_loadd(7, tiles + 2 * tile_step, stride);
      _tile_dpbusd(2, 4, 7);
    }
    if (column_tiles > 3) {
      _tile_loadd(5, tiles + 3 * tile_step, stride);
      _tile_dpbusd(3, 4, 5);
    }
  }
}

/*
 * Calls block(m, block_mr, n, nr, c) with c holding C of rows [m, m + block_mr) and columns
 * [n, n + nr) (row i at c[i], up to 64 columns), for every block of 16 rows of mr and 64 columns
 * of nc; packed_b holds ceil(nc / 64) panels. A: with rows NULL, through the row pointers
 * (qwino_igemm_ukernel_fn's a, a_offset, zero, a_sign), gathered into blocks; otherwise the
 * operator's gathered rows (ks 1), row i at rows + i row_stride, read as tiles where they are:
 * whole blocks of 16 rows and 64 bytes. Configures the tiles first where needed.
 *
 * Order: where a row block's A is gathered once (K up to kQwinoAmxMaxABlocks blocks), row blocks
 * outer and panels inner, so that it serves every panel; otherwise (A gathered per block, or the
 * operator's rows, read from L2 per block) panels go outer so that one panel's B (K x 64 bytes,
 * 295 KB for a 3x3 layer of 512 channels) stays in L2 for all the row blocks, instead of all the
 * panels' B (2.4 MB there) passing per row block.
 *
 * Software pipeline: a block's C goes from the tiles to one of two buffers, and block() runs on
 * it only after the next block's TDPBUSD have been issued, so the core's work on one block (its
 * requantization, the next row block's gather) runs while the tile unit multiplies the next,
 * instead of waiting for it (the tile store waits for its TDPBUSD; the instructions after it
 * would fill the reorder buffer behind it).
 */
/* The row block and panel of item i of QWINO_AMX_BLOCKS (its locals). */
#define QWINO_AMX_ROW(i) (amx_reuse ? (i) / amx_panels : (i) % amx_row_blocks)
#define QWINO_AMX_PANEL(i) (amx_reuse ? (i) % amx_panels : (i) / amx_row_blocks)
#define QWINO_AMX_BLOCKS(mr, nc, kc, ks, pointers, a_offset, zero, a_sign, rows, row_stride,       \
                         packed_b, block)                                                          \
  do {                                                                                             \
    struct qwino_amx_buffers amx_buffers;                                                          \
    /* A row more than the block: the two buffers are not 4 KB apart (4K aliasing of the second's  \
     * loads with the first's stores). */                                                          \
    __attribute__((aligned(64))) int32_t amx_c[2][kQwinoAmxMR + 1][kQwinoAmxNR];                   \
    if ((kc) % kQwinoAmxKBlock != 0) { /* the B tail blocks' rows past kc */                       \
      memset(amx_buffers.b_tail, 0, sizeof(amx_buffers.b_tail));                                   \
    }                                                                                              \
    const size_t amx_blocks = (ks) * (((kc) + kQwinoAmxKBlock - 1) / kQwinoAmxKBlock);             \
    const size_t amx_panel_bytes = (ks) * (((kc) + 3) / 4) * kQwinoAmxQuadBytes;                   \
    const size_t amx_panels = ((nc) + kQwinoAmxNR - 1) / kQwinoAmxNR;                              \
    const size_t amx_row_blocks = ((mr) + kQwinoAmxMR - 1) / kQwinoAmxMR;                          \
    const size_t amx_items = amx_row_blocks * amx_panels;                                          \
    const uint8_t* const amx_rows = (rows);                                                        \
    const int amx_reuse = amx_rows == NULL && amx_blocks <= kQwinoAmxMaxABlocks;                   \
    qwino_amx_configure();                                                                         \
    if (amx_reuse) {                                                                               \
      qwino_amx_gather((mr) < kQwinoAmxMR ? (mr) : kQwinoAmxMR, kc, ks, (pointers), a_offset,      \
                       zero, a_sign, 0, amx_blocks, &amx_buffers);                                 \
    }                                                                                              \
    for (size_t amx_item = 0; amx_item <= amx_items; amx_item++) {                                 \
      if (amx_item < amx_items) {                                                                  \
        const size_t amx_m = QWINO_AMX_ROW(amx_item) * kQwinoAmxMR;                                \
        const size_t amx_n = QWINO_AMX_PANEL(amx_item) * kQwinoAmxNR;                              \
        const size_t amx_mr = (mr)-amx_m < kQwinoAmxMR ? (mr)-amx_m : kQwinoAmxMR;                 \
        const size_t amx_nr = (nc)-amx_n < kQwinoAmxNR ? (nc)-amx_n : kQwinoAmxNR;                 \
        const int8_t* amx_panel = (packed_b) + amx_n / kQwinoAmxNR * amx_panel_bytes;              \
        _tile_zero(0);                                                                             \
        _tile_zero(1);                                                                             \
        _tile_zero(2);                                                                             \
        _tile_zero(3);                                                                             \
        for (size_t amx_b = 0; amx_b < amx_blocks; amx_b += kQwinoAmxMaxABlocks) {                 \
          const size_t amx_count =                                                                 \
              amx_blocks - amx_b < kQwinoAmxMaxABlocks ? amx_blocks - amx_b : kQwinoAmxMaxABlocks; \
          if (amx_rows != NULL) {                                                                  \
            qwino_amx_multiply(kc, amx_panel, (amx_nr + 15) / 16, amx_b, amx_count,                \
                               amx_rows + amx_m * (row_stride) + amx_b * kQwinoAmxKBlock,          \
                               kQwinoAmxKBlock, row_stride, &amx_buffers);                         \
            continue;                                                                              \
          }                                                                                        \
          if (!amx_reuse) {                                                                        \
            qwino_amx_gather(amx_mr, kc, ks, (pointers) + amx_m * (ks), a_offset, zero, a_sign,    \
                             amx_b, amx_count, &amx_buffers);                                      \
          }                                                                                        \
          qwino_amx_multiply(kc, amx_panel, (amx_nr + 15) / 16, amx_b, amx_count,                  \
                             &amx_buffers.a[0][0][0], sizeof(amx_buffers.a[0]), kQwinoAmxKBlock,   \
                             &amx_buffers);                                                        \
        }                                                                                          \
      }                                                                                            \
      if (amx_item > 0) { /* the previous block, while the tile unit multiplies this one */        \
        const size_t amx_prev = amx_item - 1;                                                      \
        const size_t amx_m = QWINO_AMX_ROW(amx_prev) * kQwinoAmxMR;                                \
        const size_t amx_n = QWINO_AMX_PANEL(amx_prev) * kQwinoAmxNR;                              \
        block(amx_m, (mr)-amx_m < kQwinoAmxMR ? (mr)-amx_m : kQwinoAmxMR, amx_n,                   \
              (nc)-amx_n < kQwinoAmxNR ? (nc)-amx_n : kQwinoAmxNR, amx_c[amx_prev & 1]);           \
      }                                                                                            \
      if (amx_item < amx_items) {                                                                  \
        /* The next row block's A once this one's last panel is issued: the stores come after      \
         * this block's tile loads in program order, so they cannot change what those read. */     \
        const size_t amx_next_m = (amx_item + 1) / amx_panels * kQwinoAmxMR;                       \
        if (amx_reuse && (amx_item + 1) % amx_panels == 0 && amx_next_m < (mr)) {                  \
          qwino_amx_gather((mr)-amx_next_m < kQwinoAmxMR ? (mr)-amx_next_m : kQwinoAmxMR, kc, ks,  \
                           (pointers) + amx_next_m * (ks), a_offset, zero, a_sign, 0, amx_blocks,  \
                           &amx_buffers);                                                          \
        }                                                                                          \
        int32_t(*amx_out)[kQwinoAmxNR] = amx_c[amx_item & 1];                                      \
        _tile_stored(0, &amx_out[0][0], kQwinoAmxNR * sizeof(int32_t));                            \
        _tile_stored(1, &amx_out[0][16], kQwinoAmxNR * sizeof(int32_t));                           \
        _tile_stored(2, &amx_out[0][32], kQwinoAmxNR * sizeof(int32_t));                           \
        _tile_stored(3, &amx_out[0][48], kQwinoAmxNR * sizeof(int32_t));                           \
      }                                                                                            \
    }                                                                                              \
  } while (0)

#endif /* QWINO_S8_IGEMM_ABIAS128_16X64C4_AMX_H_ */
