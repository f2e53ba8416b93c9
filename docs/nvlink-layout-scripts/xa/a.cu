extern __shared__ __align__(32) double4 buf[];
__device__ __noinline__ void fill(double4* o) { o[threadIdx.x] = buf[threadIdx.x]; }
__global__ void ka(double4* o) { __shared__ int t[5]; t[threadIdx.x % 5] = threadIdx.x; __syncthreads(); buf[threadIdx.x].x = t[0]; fill(o); }
__global__ void kb(double4* o) { buf[threadIdx.x].y = 1.0; o[0] = buf[0]; }
