extern __shared__ __align__(128) char big[];
__global__ void kc(char* o) { __shared__ char s[3]; s[threadIdx.x % 3] = 1; __syncthreads(); big[threadIdx.x] = s[0]; o[threadIdx.x] = big[threadIdx.x + 1]; }
__global__ void kd(int* o) { extern __shared__ int plain[]; plain[threadIdx.x] = 2; o[0] = plain[1]; }
