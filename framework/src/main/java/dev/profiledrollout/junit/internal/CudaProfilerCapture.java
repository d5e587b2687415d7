package dev.profiledrollout.junit.internal;

import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.nsys.NsysController;
import dev.profiledrollout.trace.TraceSet;
import java.util.List;

/**
 * An nsys capture delimited by SGLang itself: {@code /start_profile} and {@code /stop_profile} with the
 * {@code CUDA_PROFILER} activity make the process on {@code base_gpu_id} call {@code cudaProfilerStart} and
 * {@code cudaProfilerStop} ({@code _start_profile}, {@code _stop_profile} in sgl-project/sglang
 * {@code python/sglang/srt/managers/scheduler_components/profiler_manager.py}), which an
 * {@code nsys profile --capture-range=cudaProfilerApi} around the server records. The engine writes no trace; the
 * analysis is {@code nsys stats} of the configured report.
 */
final class CudaProfilerCapture extends FanOutCapture {

    private final NsysController nsys;

    CudaProfilerCapture(EngineHandle engine, List<Worker> workers, WindowSpec spec, Settings settings,
            TraceLocation traces) {
        super(engine, workers, spec, settings, traces);
        this.nsys = new NsysController(settings.nsysPath(), settings.stopTimeout());
    }

    @Override
    public Collected collect() {
        return NsysSummaries.collect(settings.nsysReport());
    }

    @Override
    public TraceSet analyse(Collected files) {
        return NsysSummaries.analyse(nsys, settings.nsysReport());
    }
}
