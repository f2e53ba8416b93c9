import sys
# gen.py N FILE : device function f with an N-case switch, kernel k calling it
n=int(sys.argv[1]); out=sys.argv[2]
cases=" ".join(f"case {i}: return a*{i+3}+b^{i*7+1};" for i in range(n))
src=f"""__device__ __noinline__ int f(int op, int a, int b) {{
  switch (op) {{ {cases} default: return 42; }}
}}
__global__ void k(int *o) {{ o[threadIdx.x] = f(o[0], o[1], threadIdx.x); }}
"""
open(out,"w").write(src)
