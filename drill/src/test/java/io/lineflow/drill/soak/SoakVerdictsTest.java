package io.lineflow.drill.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.core.TimeChart;
import io.lineflow.drill.soak.Recovery.LagSample;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The verdict lines on a made-up record: a leak fails, a flat hour passes, a short run is not judged. */
class SoakVerdictsTest {
    private static final long T0 = 1_000_000;

    private static SoakRecord hour(double heapGrowthPerSample) {
        return hour(heapGrowthPerSample, 180);
    }

    /** An hour sampled every 10 s with a TaskManager kill at each of {@code faultSamples}, the lag steady again 50 s later. */
    private static SoakRecord hour(double heapGrowthPerSample, int... faultSamples) {
        SoakOptions o = SoakOptions.parse(List.of("--faults", "tm-kill", "--fault-every", "30min"));
        SoakRecord r = new SoakRecord(T0, o, 20, 100);
        for (int i = 0; i <= 360; i++) {
            long t = T0 + i * 10_000L;
            int sample = i;
            boolean recovering = java.util.Arrays.stream(faultSamples).anyMatch(f -> sample >= f && sample < f + 5);
            r.add(SoakVerdicts.HEAP, "bytes", "taskmanager-1", t, 100e6 + heapGrowthPerSample * i);
            r.add(SoakVerdicts.CHECKPOINT_SIZE, "bytes", SoakVerdicts.FULL, t, 5e6 + (i % 2) * 1e5);
            r.lag(new LagSample(t, true, 0L, recovering ? 5_000L : 50L));
        }
        for (int f : faultSamples) {
            r.struck(new SoakRecord.Struck("tm-kill", T0 + f * 10_000L, T0 + f * 10_000L + 1_000, null));
        }
        r.check(new SoakRecord.Check(T0 + 3_600_000, "end: the whole table", true, ""));
        return r;
    }

    @Test
    void aFlatHourWithAQuickRecoveryPassesEveryVerdict() {
        List<SoakVerdicts.Verdict> v = SoakVerdicts.judge(hour(0), T0 + 3_600_000);
        assertThat(v).allMatch(SoakVerdicts.Verdict::passed);
        assertThat(v.get(3).detail()).contains("back to steady lag (≤ 100 records) in 50.0 s");
    }

    @Test
    void aHeapThatGrowsTwoPercentPer10MinutesFails() {
        // 2 MB per 10 min (60 samples) on about 108 MB: 1.85 %.
        List<SoakVerdicts.Verdict> v = SoakVerdicts.judge(hour(2e6 / 60), T0 + 3_600_000);
        assertThat(v.get(1).passed()).isFalse();
        assertThat(v.get(1).detail()).contains("taskmanager-1 +1.85 % per 10 min of 103.1 MiB");
    }

    /**
     * The heap counted every 2 minutes, as the soak counts it, with a fault 20 s before each of the
     * last 9 counts: each of them falls inside a recovery and holds its working set (100 MB more).
     * Left out, the hour is flat; judged, 9 of the span's 20 counts up at its end tilt even the
     * median of the slopes (the control).
     */
    @Test
    void countsTakenWhileTheJobRecoversAreNotJudged() {
        SoakOptions o = SoakOptions.parse(List.of("--faults", "tm-kill", "--fault-every", "2min"));
        SoakRecord judgedApart = new SoakRecord(T0, o, 20, 100);
        SoakRecord judgedAll = new SoakRecord(T0, o, 20, 100);
        int[] faults = {256, 268, 280, 292, 304, 316, 328, 340, 352};
        for (int i = 0; i <= 360; i++) {
            long t = T0 + i * 10_000L;
            int sample = i;
            boolean recovering = java.util.Arrays.stream(faults).anyMatch(f -> sample >= f && sample < f + 5);
            judgedApart.lag(new LagSample(t, true, 0L, recovering ? 5_000L : 50L));
            judgedAll.lag(new LagSample(t, true, 0L, 50L));
            if (i % 12 == 6) {
                double heap = 100e6 + (recovering ? 100e6 : 0);
                judgedApart.add(SoakVerdicts.HEAP, "bytes", "taskmanager-1", t, heap);
                judgedAll.add(SoakVerdicts.HEAP, "bytes", "taskmanager-1", t, heap);
            }
        }
        for (int f : faults) {
            judgedApart.struck(new SoakRecord.Struck("tm-kill", T0 + f * 10_000L, T0 + f * 10_000L + 1_000, null));
        }
        for (SoakRecord r : List.of(judgedApart, judgedAll)) {
            r.check(new SoakRecord.Check(T0 + 3_600_000, "end: the whole table", true, ""));
        }
        SoakVerdicts.Verdict passes =
                SoakVerdicts.judge(judgedApart, T0 + 3_600_000).get(1);
        SoakVerdicts.Verdict fails =
                SoakVerdicts.judge(judgedAll, T0 + 3_600_000).get(1);

        assertThat(passes.passed()).as(passes.detail()).isTrue();
        assertThat(passes.name()).startsWith(SoakVerdicts.HEAP + " outside recoveries flat");
        assertThat(passes.detail()).contains("taskmanager-1 +0.00 % per 10 min of 95.4 MiB");
        assertThat(fails.passed()).as(fails.detail()).isFalse();
    }

    @Test
    void noFinalCheckIsNotExact() {
        SoakRecord r = new SoakRecord(T0, SoakOptions.DEFAULTS, 20, 100);
        assertThat(SoakVerdicts.judge(r, T0 + 60_000).get(0).passed()).isFalse();
    }

    @Test
    void aShortRunShowsItsSlopesWithoutJudgingThem() {
        SoakOptions o = SoakOptions.parse(List.of("--duration", "5min", "--faults", "none"));
        SoakRecord r = new SoakRecord(T0, o, 20, 100);
        for (int i = 0; i <= 30; i++) {
            r.add(SoakVerdicts.HEAP, "bytes", "taskmanager-1", T0 + i * 10_000L, 100e6 + 1e6 * i);
        }
        SoakVerdicts.Verdict heap =
                SoakVerdicts.judge(r, T0 + Duration.ofMinutes(5).toMillis()).get(1);
        assertThat(heap.passed()).isTrue();
        assertThat(heap.name()).contains("not judged");
    }

    @Test
    void aShortRunWithTooFewSamplesIsNotJudgedEither() {
        // A 6-minute run judges its last 4 minutes; the heap is sampled every 2 minutes, so its
        // samples in that span may cover less than half of it.
        SoakOptions o = SoakOptions.parse(List.of("--duration", "6min", "--faults", "none"));
        SoakRecord r = new SoakRecord(T0, o, 20, 100);
        r.add(
                SoakVerdicts.HEAP,
                "bytes",
                "taskmanager-1",
                T0 + Duration.ofMinutes(5).toMillis(),
                100e6);
        SoakVerdicts.Verdict heap =
                SoakVerdicts.judge(r, T0 + Duration.ofMinutes(6).toMillis()).get(1);
        assertThat(heap.passed()).isTrue();
        assertThat(heap.detail()).contains("too few samples");
    }

    /** The fault at 30 min released a classloader: gone by the last sample a minute later, or left behind. */
    @Test
    void aReleasedClassLoaderLeftBehindFails() {
        SoakRecord kept = hour(0);
        SoakRecord gone = hour(0);
        for (int i = 0; i <= 30; i++) {
            long t = T0 + i * 120_000L;
            gone.add(SoakVerdicts.LOADERS, "classloaders", "taskmanager-1", t, i <= 15 ? 1 : i == 16 ? 2 : 1);
            kept.add(SoakVerdicts.LOADERS, "classloaders", "taskmanager-1", t, i <= 15 ? 1 : 2);
        }
        SoakVerdicts.Verdict passes = SoakVerdicts.judge(gone, T0 + 3_600_000).get(4);
        SoakVerdicts.Verdict fails = SoakVerdicts.judge(kept, T0 + 3_600_000).get(4);

        assertThat(passes.passed()).as(passes.detail()).isTrue();
        assertThat(fails.passed()).isFalse();
        assertThat(fails.detail()).isEqualTo("taskmanager-1 2");
    }

    /**
     * A JobManager may hold what its Flink line keeps for a running job (2.2: the job's
     * classloader and its main's), a TaskManager still one.
     */
    @Test
    void aJobManagerMayHoldWhatItsLineKeepsForTheJob() {
        SoakRecord r = hour(0);
        r.add(SoakVerdicts.LOADERS, "classloaders", "jobmanager-1-g0", T0 + 3_000_000, 2);
        r.add(SoakVerdicts.LOADERS, "classloaders", "taskmanager-1-g0", T0 + 3_000_000, 1);
        SoakVerdicts.Verdict twoKept = SoakVerdicts.released(loaders(r), r.struck(), 2);
        SoakVerdicts.Verdict oneKept = SoakVerdicts.released(loaders(r), r.struck(), 1);
        r.add(SoakVerdicts.LOADERS, "classloaders", "taskmanager-1-g0", T0 + 3_100_000, 2);
        SoakVerdicts.Verdict taskManagerTwo = SoakVerdicts.released(loaders(r), r.struck(), 2);

        assertThat(twoKept.passed()).as(twoKept.detail()).isTrue();
        assertThat(twoKept.name()).contains("≤ 1 per TaskManager, 2 per JobManager");
        assertThat(oneKept.passed()).isFalse();
        assertThat(oneKept.name()).contains("≤ 1 per JVM");
        assertThat(taskManagerTwo.passed()).isFalse();
        assertThat(taskManagerTwo.detail()).isEqualTo("jobmanager-1-g0 2, taskmanager-1-g0 2");
    }

    private static Map<String, List<TimeChart.Point>> loaders(SoakRecord r) {
        return r.charts().get(SoakVerdicts.LOADERS);
    }

    /** Right after the last fault the released classloader may still be alive: not judged then. */
    @Test
    void aSampleTooSoonAfterTheLastFaultIsNotJudged() {
        SoakRecord r = hour(0);
        r.add(SoakVerdicts.LOADERS, "classloaders", "taskmanager-1", T0 + 1_830_000, 2);
        SoakVerdicts.Verdict v = SoakVerdicts.judge(r, T0 + 1_840_000).get(4);
        assertThat(v.passed()).isTrue();
        assertThat(v.name()).contains("not judged");
    }
}
