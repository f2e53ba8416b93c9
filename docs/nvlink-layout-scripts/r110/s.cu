__global__ void ks(int *o) { __shared__ int s[64]; s[threadIdx.x] = o[threadIdx.x]; __syncthreads(); o[threadIdx.x] = s[63 - threadIdx.x]; }
