package io.lineflow.reconciler.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.TestUtils;
import io.lineflow.reconciler.model.SpecObservation;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.spec.JobSpec;
import org.apache.flink.kubernetes.operator.api.spec.JobState;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

/** What the spec checks read from a FlinkDeployment: the job's modes, and lineflow's job told from another team's. */
class SpecReaderTest {

    @Test
    void lineflowsEntryClassIsTheJobsOwn() {
        assertThat(SpecReader.LINEFLOW_ENTRY_CLASS).isEqualTo(io.lineflow.job.LineflowJob.class.getName());
    }

    @Test
    void recognisesLineflowsJobByEntryClassOrByItsJarWhenNoEntryClassIsNamed() {
        JobSpec byClass = JobSpec.builder()
                .jarURI("local:///elsewhere.jar")
                .entryClass(" io.lineflow.job.LineflowJob ")
                .build();
        JobSpec byJar = JobSpec.builder().jarURI(SpecReader.LINEFLOW_JAR).build();
        JobSpec other = JobSpec.builder()
                .jarURI(SpecReader.LINEFLOW_JAR)
                .entryClass("com.example.OtherJob")
                .build();
        JobSpec otherJar =
                JobSpec.builder().jarURI("local:///opt/flink/usrlib/other.jar").build();
        assertThat(SpecReader.runsLineflowJob(byClass)).isTrue();
        assertThat(SpecReader.runsLineflowJob(byJar)).isTrue();
        assertThat(SpecReader.runsLineflowJob(other)).isFalse();
        assertThat(SpecReader.runsLineflowJob(otherJar)).isFalse();
    }

    @Test
    void readsUpgradeModeAndDesiredStateAsTheOperatorsTypes() {
        FlinkDeployment fd = TestUtils.flinkDeployment("flink", "lineflow");
        fd.getSpec().getJob().setState(JobState.SUSPENDED);
        SpecObservation spec = SpecReader.spec(fd);
        assertThat(spec.upgradeMode()).isEqualTo(UpgradeMode.LAST_STATE);
        assertThat(spec.desiredState()).isEqualTo(JobState.SUSPENDED);
        assertThat(spec.suspended()).isTrue();
        fd.getSpec().setJob(null);
        assertThat(SpecReader.spec(fd).upgradeMode()).as("a session cluster").isNull();
    }

    @Test
    void modesAreWrittenInMessagesAsInAFlinkDeployment() throws Exception {
        // The operator's enums carry their YAML spelling (@JsonProperty); messages and evidence
        // must quote what the user wrote, e.g. last-state, not LAST_STATE.
        ObjectMapper json = new ObjectMapper();
        List<Enum<?>> values = new ArrayList<>(List.of(UpgradeMode.values()));
        values.addAll(List.of(JobState.values()));
        for (Enum<?> value : values) {
            assertThat(SpecObservation.written(value)).isEqualTo(json.convertValue(value, String.class));
        }
    }
}
