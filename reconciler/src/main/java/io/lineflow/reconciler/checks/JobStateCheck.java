package io.lineflow.reconciler.checks;

import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.FlinkObservation.Job;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.KubernetesStatus;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Severity;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.status.JobManagerDeploymentStatus;

import java.time.Clock;
import java.util.EnumSet;
import java.util.Set;

/** JOB_NOT_RUNNING: the operator or Flink says the job is not RUNNING. */
public final class JobStateCheck implements Check {

    /** States a job passes through on its way back to RUNNING: worth a warning, not an alarm. */
    private static final Set<JobStatus> TRANSIENT_STATES = EnumSet.of(
            JobStatus.RESTARTING,
            JobStatus.INITIALIZING,
            JobStatus.CREATED,
            JobStatus.RECONCILING,
            JobStatus.FAILING,
            JobStatus.CANCELLING);

    @Override
    public HealthResult evaluate(Observation o, Configuration conf, Clock clock) {
        if (o.spec().suspended()) {
            return Finding.of(
                            FindingCode.JOB_NOT_RUNNING,
                            Severity.INFO,
                            "The job is suspended on purpose (spec.job.state: suspended); nothing to do unless that is a mistake.")
                    .with("desiredState", "suspended")
                    .build()
                    .asResult();
        }
        KubernetesStatus k = o.status();
        Job job = o.job();
        JobStatus k8sState = k == null ? null : k.jobState();
        JobManagerDeploymentStatus jmStatus = k == null ? null : k.jobManagerDeploymentStatus();
        JobStatus restState = job == null ? null : job.state();
        boolean noJobInFlink =
                o.flink() != null && o.flink().ok() && job == null && o.spec().hasJob();
        boolean jmBroken =
                jmStatus == JobManagerDeploymentStatus.ERROR || jmStatus == JobManagerDeploymentStatus.MISSING;
        JobStatus bad = firstNonRunning(restState, k8sState);
        if (bad == null && !jmBroken && !noJobInFlink) {
            return HealthResult.healthy();
        }
        Severity severity =
                (bad != null && TRANSIENT_STATES.contains(bad)) && !jmBroken ? Severity.WARNING : Severity.CRITICAL;
        String what = noJobInFlink
                ? "Flink reports no job"
                : jmBroken ? "the JobManager deployment is " + jmStatus : "the job is " + bad;
        return Finding.of(
                        FindingCode.JOB_NOT_RUNNING,
                        severity,
                        "The job is not running: " + what + ". No windows are being produced. "
                                + "Check `kubectl describe flinkdeployment "
                                + o.spec().name() + "` and the JobManager log"
                                + (k != null && k.error() != null ? "; operator error: " + k.error() : "") + ".")
                .with("flinkState", restState)
                .with("operatorJobState", k8sState)
                .with("jobManagerDeploymentStatus", jmStatus)
                .with("lifecycleState", k == null ? null : k.lifecycleState())
                .build()
                .asResult();
    }

    private static JobStatus firstNonRunning(JobStatus... states) {
        for (JobStatus s : states) {
            if (s != null && s != JobStatus.RUNNING) {
                return s;
            }
        }
        return null;
    }
}
