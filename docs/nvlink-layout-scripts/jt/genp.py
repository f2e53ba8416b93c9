import sys
# genp.py OUT.ptx T0,T1,... : device function f with brx.idx over targets L<Ti>; kernel k calls f
ts=[int(x) for x in sys.argv[2].split(",")]
labels=sorted(set(ts))
body=[]
for l in labels:
    body.append(f"L{l}:\n  mul.lo.s32 %r3, %r2, {l*7+3};\n  add.s32 %r3, %r3, {l*11+5};\n  st.param.b32 [func_retval0], %r3;\n  ret;")
src=f""".version 9.0
.target sm_100
.address_size 64
.visible .func (.param .b32 func_retval0) f(.param .b32 p0, .param .b32 p1)
{{
  .reg .b32 %r<8>;
  .reg .pred %p<2>;
  ld.param.b32 %r1, [p0];
  ld.param.b32 %r2, [p1];
  setp.gt.u32 %p1, %r1, {len(ts)-1};
  @%p1 bra Ldef;
  ts: .branchtargets {", ".join(f"L{t}" for t in ts)};
  brx.idx %r1, ts;
{chr(10).join(body)}
Ldef:
  st.param.b32 [func_retval0], 42;
  ret;
}}
.visible .entry k(.param .u64 o)
{{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [o];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.u32 %r1, [%rd2];
  ld.global.u32 %r2, [%rd2+4];
  {{ .param .b32 a0; .param .b32 a1; .param .b32 rv;
  st.param.b32 [a0], %r1; st.param.b32 [a1], %r2;
  call.uni (rv), f, (a0, a1);
  ld.param.b32 %r3, [rv]; }}
  st.global.u32 [%rd2+8], %r3;
  ret;
}}
"""
open(sys.argv[1],"w").write(src)
