// Positional and indexing kernels: rotary embeddings (computed with
// sincosf, and from cos/sin tables), an embedding gather through
// const __restrict__ pointers and __ldg, and an index-add scatter.

struct RopeShape {
  int seq_len;
  int n_heads;
  int head_dim;
  float theta;
};

// Interleaved (GPT-J) rotary embedding: pairs (2i, 2i+1) rotate by pos * theta^(-2i/d).
extern "C" __global__ void rope_interleaved(float* x, const int* positions, RopeShape s) {
  const int half = s.head_dim / 2;
  const unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int total = (unsigned int)s.seq_len * s.n_heads * half;
  if (idx >= total) return;
  const int i = idx % half;
  const int tok = idx / (half * s.n_heads);
  const float freq = powf(s.theta, -2.0f * i / s.head_dim);
  float sn, cs;
  sincosf(positions[tok] * freq, &sn, &cs);
  float* p = x + (size_t)(idx / half) * s.head_dim + 2 * i;
  const float a = p[0], b = p[1];
  p[0] = a * cs - b * sn;
  p[1] = a * sn + b * cs;
}

// NeoX-style rotary embedding with precomputed tables cos/sin[seq][head_dim/2].
extern "C" __global__ void rope_neox_table(const float* __restrict__ x, const float* __restrict__ cos_t,
                                           const float* __restrict__ sin_t, float* __restrict__ y, int seq_len,
                                           int n_heads, int head_dim) {
  const int half = head_dim / 2;
  const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (size_t)seq_len * n_heads * half) return;
  const int i = idx % half;
  const int tok = idx / ((size_t)half * n_heads);
  const size_t base = (idx / half) * head_dim;
  const float c = __ldg(&cos_t[(size_t)tok * half + i]), s = __ldg(&sin_t[(size_t)tok * half + i]);
  const float a = x[base + i], b = x[base + i + half];
  y[base + i] = a * c - b * s;
  y[base + i + half] = a * s + b * c;
}

// Embedding lookup: one block per token, read-only loads through __ldg.
extern "C" __global__ void embedding_gather(const float* __restrict__ table, const int* __restrict__ ids,
                                            float* __restrict__ out, int dim, int vocab) {
  const int tok = blockIdx.x;
  int id = __ldg(&ids[tok]);
  id = id < 0 ? 0 : (id >= vocab ? vocab - 1 : id);
  const float* src = table + (size_t)id * dim;
  for (int d = threadIdx.x; d < dim; d += blockDim.x) out[(size_t)tok * dim + d] = __ldg(&src[d]);
}

// index_add along dim 0: out[index[r], :] += src[r, :].
extern "C" __global__ void index_add_rows(const float* __restrict__ src, const long long* __restrict__ index,
                                          float* out, int rows, int dim) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (size_t)rows * dim) return;
  const size_t r = i / dim, c = i % dim;
  atomicAdd(&out[(size_t)__ldg(&index[r]) * dim + c], __ldg(&src[i]));
}
