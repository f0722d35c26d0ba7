package io.lineflow.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CRDs of an operator release as scripts/operator-crds.sh extracts them from its source
 * release, one folder per version: what the deploy tests validate against and the k8s-it tests
 * install on their API server.
 */
public final class OperatorCrds {
    /** The FlinkDeployment CRD's file name in the operator's Helm chart. */
    public static final String FLINK_DEPLOYMENT = "flinkdeployments.flink.apache.org-v1.yml";

    private OperatorCrds() {}

    /**
     * The folder of release {@code version}'s CRDs under {@code dir}; fails naming the missing
     * FlinkDeployment CRD and how to get it when it is not there.
     */
    public static Path of(Path dir, String version) {
        Path folder = dir.resolve(version);
        Path crd = folder.resolve(FLINK_DEPLOYMENT);
        if (!Files.isRegularFile(crd)) {
            throw new IllegalStateException(crd + " is missing: `scripts/operator-crds.sh " + dir
                    + "` extracts the CRDs of operator release " + version
                    + " from its source release (../shared/vendor/flink-kubernetes-operator-" + version
                    + "-src.tar.gz, or the file LINEFLOW_OPERATOR_SRC names); Maven runs it in"
                    + " generate-test-resources");
        }
        return folder;
    }
}
