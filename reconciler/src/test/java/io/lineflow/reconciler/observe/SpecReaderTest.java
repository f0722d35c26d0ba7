package io.lineflow.reconciler.observe;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.kubernetes.operator.api.spec.JobSpec;
import org.junit.jupiter.api.Test;

/** How the spec checks tell lineflow's job from another team's. */
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
}
