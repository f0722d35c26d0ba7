package io.lineflow.k8s;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives tests a {@link KubeEnv}: a real kube-apiserver with RBAC and the operator CRDs installed.
 *
 * <p>One server serves every test class of the run. A server already started by {@code make
 * k8s-test-env} (state in {@code .cache/k8s-env}) is reused and left running; otherwise
 * scripts/k8s-test-env.sh starts one under {@code target/k8s-env} and stops it when the run ends.
 * No server is a test failure, never a skip.
 */
public final class KubeApiServerExtension implements BeforeAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(KubeApiServerExtension.class);

    static KubeEnv env(ExtensionContext context) {
        return context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(KubeEnv.class, k -> KubeEnv.startOrReuse(), KubeEnv.class);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        env(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == KubeEnv.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return env(context);
    }
}
