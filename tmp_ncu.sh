#!/usr/bin/env bash
# temporary: stall breakdown of chosen kernels (not committed)
M=smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second
for r in barrier dispatch_stall short_scoreboard long_scoreboard wait math_pipe_throttle not_selected no_instruction mio_throttle selected lg_throttle; do M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
exe=build/bin/05_double_buffer
i=0; SKIP=${SKIP:-1}
for re in "regex:lean_gemm<[^,]*128, [^,]*128, [^,]*16, [^,]*64, [^,]*32, [^,]*8, [^,]*8, [^,]*, [^,]*2, [^,]*3,"; do
  i=$((i+1))
  ncu --clock-control none --kernel-name-base demangled --kernel-name "$re" --launch-skip $SKIP --launch-count 1 --metrics $M --csv --page raw $exe --size 4096 --iters 1 --no-check > $OUT/ncu_$i.csv 2> $OUT/ncu_$i.err
done
python3 - <<'PY'
import csv,glob,os
out=os.environ['OUT']
for f in sorted(glob.glob(out+'/ncu_*.csv')):
    rows=[r for r in csv.reader(l for l in open(f) if l.startswith('"'))]
    if len(rows)<3: print(f,'no data'); continue
    h=rows[0]; v=rows[2]
    d=dict(zip(h,v))
    print('==',d.get('Kernel Name','?')[:90])
    for k in h:
        if k.startswith('sm') or k.startswith('gpu'):
            print(f"  {k.replace('smsp__average_warps_issue_stalled_','stall ').replace('_per_issue_active.ratio',''):60s} {d[k]}")
PY
