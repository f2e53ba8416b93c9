#!/bin/bash
# Relinks every committed fixture exec group in variants nvlink and develf must
# agree on, and prints the links whose outputs differ (session 14).
#   fixture_sweeps.sh ku  ARCH...   -kernels-used naming a group's first kernel, and its first two
#   fixture_sweeps.sh var ARCH...   inputs reversed (exec and -r), -preserve-relocs,
#                                   -variables-used=<first global variable>, exec relink of link-r/
#   fixture_sweeps.sh g ARCH...     -g, exec and -r
# Needs `cargo xtask toolchain` (nvlink) and `cargo build --release` (develf).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
nvlink=$root/target/toolchains/cuda13/nvidia/cu13/bin/nvlink
develf=${DEVELF:-$root/target/release/develf}
mode=$1; shift
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$root/tests/fixtures"
total=0; same=0
run() { # tag, nvlink arguments...
  local tag=$1; shift
  rm -rf "$work/nv" "$work/dv"; mkdir -p "$work/nv" "$work/dv"
  (cd "$work/nv" && "$nvlink" "$@" -o o.cubin >/dev/null 2>&1); local a=$?
  (cd "$work/dv" && "$develf" nvlink "$@" -o o.cubin >/dev/null 2>&1); local b=$?
  total=$((total + 1))
  if { [ $a = 0 ] && [ $b = 0 ] && cmp -s "$work/nv/o.cubin" "$work/dv/o.cubin"; } || { [ $a != 0 ] && [ $b != 0 ]; }; then
    same=$((same + 1))
  else
    echo "DIFF (status $a/$b) $tag: $*"
  fi
}
for arch in "$@"; do
  for cmd in link/$arch/*.nvlink.cmd; do
    args=$(cat "$cmd"); args=${args#nvlink }
    case " $args " in *" -g "*) continue ;; esac
    group=$(basename "$cmd" .nvlink.cmd)
    words=$(echo "$args" | sed 's/ -o .*//')
    target=$(echo "$words" | awk '{print $1}')
    flags=$(echo "$words" | cut -d' ' -f2- | tr ' ' '\n' | grep '^-' | tr '\n' ' ')
    inputs=$(echo "$words" | cut -d' ' -f2- | tr ' ' '\n' | grep -v '^-' | sed "s|^|$PWD/|" | tr '\n' ' ')
    case $mode in
      ku)
        kernels=$("$develf" dump "link/$arch/$group.cubin" 2>/dev/null | awk '$4=="FUNC" && $7=="ENTRY" {print $NF}' | head -2)
        [ -z "$kernels" ] && continue
        run "$arch/$group one" $target $flags $inputs -kernels-used=$(echo "$kernels" | head -1)
        run "$arch/$group two" $target $flags $inputs -kernels-used=$(echo "$kernels" | paste -sd,)
        ;;
      var)
        reversed=$(echo $inputs | tr ' ' '\n' | tac | tr '\n' ' ')
        run "$arch/$group reversed" $target $flags $reversed
        run "$arch/$group reversed -r" $target -r $flags $reversed
        run "$arch/$group -preserve-relocs" $target -preserve-relocs $flags $inputs
        variable=$("$develf" dump "link/$arch/$group.cubin" 2>/dev/null | awk '($4=="OBJECT" || $4=="CUDA_OBJECT") && $5=="GLOBAL" {print $NF}' | head -1)
        [ -n "$variable" ] && run "$arch/$group -variables-used" $target -variables-used=$variable $flags $inputs
        [ -f "link-r/$arch/$group.cubin" ] && run "$arch/$group relinked" $target $flags "$PWD/link-r/$arch/$group.cubin"
        ;;
      g)
        run "$arch/$group -g" $target -g $flags $inputs
        run "$arch/$group -g -r" $target -g -r $flags $inputs
        ;;
      *) echo "usage: $0 ku|var|g ARCH..." >&2; exit 2 ;;
    esac
  done
done
echo "total $total, identical or failing in both: $same"
