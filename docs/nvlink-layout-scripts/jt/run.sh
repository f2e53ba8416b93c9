#!/bin/bash
# run.sh NAME TARGETS [ARCH]: compile, link with nvlink, print input and output merc rela order of the merged bank
B=${TOOLCHAINS:-target/toolchains}/cuda13/nvidia/cu13/bin; D=${DEVELF:-target/release/develf}
a=${3:-sm_100}
python3 genp.py $1.ptx $2 && sed -i "s/sm_100/$a/" $1.ptx && $B/ptxas -arch=$a -c $1.ptx -o $1.cubin || exit 1
$B/nvlink -arch=$a $1.cubin -o $1.nv.cubin || exit 1
echo "in : $($D dump $1.cubin | grep -A80 "^Relocation section '.nv.merc.rela.nv.constant.optimizer" | awk '/^$/{exit} NR>2{print $1"/"$3}' | tr '\n' ' ')"
echo "out: $($D dump $1.nv.cubin | grep -A80 "^Relocation section '.nv.merc.rela.nv.constant.optimizer" | awk '/^$/{exit} NR>2{print $1"/"$3}' | tr '\n' ' ')"
