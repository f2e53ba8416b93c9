__global__ void k(int *o) { o[threadIdx.x] = threadIdx.x * 3 + 1; }
