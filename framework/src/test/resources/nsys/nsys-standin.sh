#!/bin/sh
# Stand-in for the Nsight Systems CLI in tests: appends its arguments (one invocation per line) to nsys-args.log
# beside itself and prints output in the formats recorded in docs/PROTOCOLS.md §4 (sessions list, plain) and
# docs/TRACES.md §5 (cuda_gpu_kern_sum CSV). A file "json-sessions" beside it makes `sessions list -f json` succeed with
# JSON; without it that call fails as an nsys without -f would. A file "fail-start" makes `start` fail.
here=$(dirname "$0")
echo "$*" >> "$here/nsys-args.log"
case "$1" in
  sessions)
    case "$*" in
      *"-f json"*)
        if [ -f "$here/json-sessions" ]; then
          echo '[{"ID":"10345602","Time":"00:41","State":"DelayedCollection","Launch":"1","Name":"sglang-decode"}]'
          exit 0
        fi
        echo "nsys: unrecognised option '-f'" >&2
        exit 1 ;;
    esac
    echo "              ID         TIME                       STATE LAUNCH NAME"
    echo "        10345602        00:41           DelayedCollection      1 profile-345586"
    exit 0 ;;
  start)
    if [ -f "$here/fail-start" ]; then
      echo "Error: session not found" >&2
      exit 3
    fi
    exit 0 ;;
  stop)
    exit 0 ;;
  stats)
    echo "Processing [/tmp/report.sqlite] with [/opt/nsys/reports/cuda_gpu_kern_sum.py]... "
    echo ""
    echo "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"
    echo "61.3,6130000,256,23945.3,23900.0,21000,30000,1200.5,\"void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2u, 4u, 8u, 16u, 1u, 8u>(...)\""
    echo "30.0,3000000,512,5859.4,5800.0,5000,7000,300.2,sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"
    echo "8.7,870000,1024,849.6,840.0,700,1200,50.0,ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
    exit 0 ;;
  export)
    exit 0 ;;
esac
echo "nsys stand-in: unknown command $1" >&2
exit 2
