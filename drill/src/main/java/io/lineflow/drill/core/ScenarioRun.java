package io.lineflow.drill.core;

import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.recount.WindowRecount;
import io.lineflow.testing.DeterministicInput;
import io.lineflow.testing.ExpectedWindows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One scenario's run, the same for both drills: the deterministic input produced into Kafka at
 * the drill's pace, the fault struck when the producer reaches the injection point, the recovery
 * timeline ({@link Timeline}), then the table checked cell by cell against everything sent to it
 * ({@link TableCheck}). What differs per backend is the backend itself and the {@link Strike}.
 *
 * <p>A strike that fails is the scenario's error, and the table is checked all the same: the
 * input is in Kafka, and later scenarios on the same table are judged against all of it.
 */
public final class ScenarioRun {
    /** What a drill does at the injection point. */
    public interface Strike {
        /** Just before the strike at {@code injectedAt} (epoch ms): note what the checks after it compare with. */
        default void before(long injectedAt) throws Exception {}

        /** Strikes the fault; returns when the job ran again if the strike waited for that, else null. */
        Long strike() throws Exception;

        /** Once the timeline is measured: what the fault must have done, or left alone. */
        default void after(ScenarioResult result) throws Exception {}
    }

    /**
     * The scenario's input and how it is struck.
     *
     * @param millis wall-clock time to produce the whole input
     * @param injectIndex the record before which the fault strikes; ignored without a strike
     * @param holdUntilStruck the rest of the input waits until the strike returns (a fault whose
     *     damage only shows when no input arrives while it takes effect)
     * @param strike null for a scenario that only produces
     */
    public record Plan(
            DeterministicInput input,
            long millis,
            int injectIndex,
            boolean holdUntilStruck,
            Timeline.Pace pace,
            Strike strike) {}

    /**
     * Everything sent to one table over the scenarios that write it (one, or a whole run on one
     * deployment): the table's expected answer, and the differences already reported.
     */
    public static final class Table {
        private final List<WindowRecount.Input> sent = new ArrayList<>();
        private final Map<RejectReason, Long> rejections = new EnumMap<>(RejectReason.class);
        private final Set<String> reported = new HashSet<>();

        TableCheck.Expectation add(DeterministicInput input, long producedAt) {
            sent.addAll(ExpectedWindows.inputs(input, producedAt));
            input.rejections.forEach((reason, n) -> rejections.merge(reason, n, Long::sum));
            return new TableCheck.Expectation(TableCheck.expected(sent), rejections);
        }
    }

    private final Backend backend;
    private final String bootstrap;
    private final String topic;
    private final Duration tableWait;
    private final Consumer<String> log;

    /** @param tableWait from the input's end until the table must be exact */
    public ScenarioRun(Backend backend, String bootstrap, String topic, Duration tableWait, Consumer<String> log) {
        this.backend = backend;
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.tableWait = tableWait;
        this.log = log;
    }

    /**
     * Runs {@code plan} as scenario {@code id} and checks {@code table} with its input added; the
     * findings go to {@code result}.
     *
     * @return when the input's last record was acknowledged by Kafka (epoch ms)
     * @throws IllegalStateException when Kafka did not take every record: the expected table
     *     would not be what was sent
     */
    public long run(String id, Plan plan, Table table, ScenarioResult result) throws InterruptedException {
        DeterministicInput input = plan.input();
        boolean strikes = plan.strike() != null;
        CountDownLatch atInjection = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(strikes && plan.holdUntilStruck() ? 1 : 0);
        AtomicLong rejectedByKafka = new AtomicLong();
        log.accept(String.format("%s: producing %d records over %d s", id, input.records.size(), plan.millis() / 1000));
        Thread producer = new Thread(
                () -> TableCheck.produce(
                        bootstrap,
                        topic,
                        input,
                        plan.millis(),
                        strikes ? plan.injectIndex() : -1,
                        atInjection,
                        resume,
                        rejectedByKafka),
                "drill-producer");
        producer.start();
        try {
            if (strikes) {
                atInjection.await();
                strike(id, plan, result, resume);
            }
        } finally {
            resume.countDown();
            producer.join();
        }
        if (rejectedByKafka.get() > 0) {
            throw new IllegalStateException("Kafka did not accept " + rejectedByKafka.get()
                    + " input records: the expected table is not what was sent");
        }
        long produced = System.currentTimeMillis();
        TableCheck.Observed observed = TableCheck.await(backend.database(), table.add(input, produced), tableWait);
        TableCheck.verify(observed, result, table.reported);
        log.accept(String.format(
                "%s: table read %s after the last record: %s",
                id, DrillReport.seconds(System.currentTimeMillis() - produced), observed.waited()));
        return produced;
    }

    private void strike(String id, Plan plan, ScenarioResult result, CountDownLatch resume)
            throws InterruptedException {
        try {
            long injectedAt = System.currentTimeMillis();
            log.accept(String.format(
                    "%s: striking after %d of %d records",
                    id, plan.injectIndex(), plan.input().records.size()));
            result.marks.add(new TimeChart.Mark(injectedAt, id));
            plan.strike().before(injectedAt);
            Long recoveredAt;
            try {
                recoveredAt = plan.strike().strike();
            } finally {
                resume.countDown();
            }
            Timeline.measure(backend, plan.pace(), injectedAt, recoveredAt, result);
            log.accept(String.format(
                    "%s: job RUNNING again after %s, first new window row after %s",
                    id,
                    result.recoveryMillis == null ? "(never left RUNNING)" : DrillReport.seconds(result.recoveryMillis),
                    result.outputGapMillis == null ? "—" : DrillReport.seconds(result.outputGapMillis)));
            plan.strike().after(result);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            result.error = id + " could not be carried out: " + e.getMessage();
            log.accept(result.error);
        }
    }
}
