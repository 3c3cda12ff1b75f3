#!/usr/bin/env bash
# Runs ON the GPU machine: the arithmetic probes (`g16 bench arith --backend
# cuda`: products, squares, mixed additions and the pipe probes, every case
# checked) and, per probe kernel, the opcode counts of its SASS (IMAD.WIDE,
# IMAD, DFMA, DADD, the rest), which say what each measured rate is a rate
# of (docs/gpu.md, "Roofline"), and the whole SASS of the BLS12-381 product.
#   bash scripts/gpu-pipes.sh OUTDIR BUILDDIR [KITDIR]
set -u
out=${1:?usage: gpu-pipes.sh OUTDIR BUILDDIR [KITDIR]}
bd=$(cd "${2:?usage}" && pwd)
kit=$(cd "${3:-.device/kit}" && pwd)
export LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
for c in bn254 bls12-381; do
    "$bd/g16" bench arith --backend cuda --curve $c --seed 7 --json >"$out/arith_$c.json" 2>"$out/arith_$c.err"
    echo "arith $c: rc=$?"
    sed 's/,"options":{[^}]*}//' "$out/arith_$c.json"
done
# Opcode histogram per arith kernel (cu++filt names; SASS from cuobjdump).
if command -v cuobjdump >/dev/null; then
    cuobjdump -sass "$bd/g16" 2>/dev/null | awk '
        /Function : / { fn = $3; keep = fn ~ /arith_kernel/; next }
        keep && /\/\*[0-9a-f]+\*\// {
            op = ""
            for (i = 2; i <= NF; i++) if ($i !~ /^@/ && $i !~ /^\/\*/) { op = $i; break }
            sub(/;$/, "", op)
            split(op, parts, ".")
            base = parts[1]
            if (op ~ /^IMAD\.WIDE/) base = "IMAD.WIDE"
            if (op ~ /^IMAD\.MOV/) base = "IMAD.MOV"
            n[fn, base]++; tot[fn]++; fns[fn] = 1
        }
        END {
            for (f in fns) {
                printf "%s total=%d", f, tot[f]
                split("IMAD.WIDE IMAD.MOV IMAD DFMA DADD DMUL IADD3 LOP3 SHF MOV I2F F2I", ks, " ")
                for (k in ks) if (n[f, ks[k]]) printf " %s=%d", ks[k], n[f, ks[k]]
                printf "\n"
            }
        }' | (command -v cu++filt >/dev/null && cu++filt || cat) | sort >"$out/sass_ops.txt"
    wc -l <"$out/sass_ops.txt"
    grep -E "op_imad|op_dfma|op_mix|op_mul_limbs|op_mul<" "$out/sass_ops.txt" | cut -c1-400
    # the whole SASS of the BLS12-381 product's kernel (one chain)
    cuobjdump -sass "$bd/g16" 2>/dev/null | awk '/Function : / { keep = $3 ~ /6op_mulINS_4fp_tINS_13bls381_fp_cfg.*Li1E/ } keep' \
        >"$out/sass_mul_bls381.txt"
    wc -l <"$out/sass_mul_bls381.txt"
else
    echo "gpu-pipes: no cuobjdump on this machine"
fi
