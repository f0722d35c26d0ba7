package io.lineflow.reconciler.audit;

import io.lineflow.reconciler.observe.SpecReader;
import io.lineflow.settings.ConfigException;
import io.lineflow.settings.LineflowSettings;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapVolumeSource;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.spec.FlinkDeploymentSpec;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The lineflow settings a FlinkDeployment gives its job, read from where the job reads them and
 * merged and checked by the job's own reading ({@link LineflowSettings}): {@code
 * spec.flinkConfiguration} (the cluster configuration), the properties file {@code --config} names
 * in {@code spec.job.args}, read from the ConfigMap mounted at that path in the JobManager's main
 * container, the {@code LINEFLOW_*} variables of that container ({@code value}, a ConfigMap's key,
 * or a whole ConfigMap by {@code envFrom}), then the other arguments. Values from Secrets are not
 * read: they are credentials, and the audit connects with its own.
 */
public final class JobSettings {
    /** Reads ConfigMaps of the deployment's namespace. */
    @FunctionalInterface
    public interface ConfigMaps {
        /** The ConfigMap's data, or {@code null} when there is none of that name. */
        Map<String, String> data(String namespace, String name);
    }

    private JobSettings() {}

    /** ConfigMaps through the API server (RBAC: {@code get} on configmaps in the namespace). */
    public static ConfigMaps from(KubernetesClient client) {
        return (namespace, name) -> {
            ConfigMap cm =
                    client.configMaps().inNamespace(namespace).withName(name).get();
            return cm == null ? null : cm.getData() == null ? Map.of() : cm.getData();
        };
    }

    /**
     * The job's settings, checked as the job checks its lineflow keys at start.
     *
     * @throws ConfigException naming every problem: a value with its key and what is allowed, or a
     *     source that cannot be read and why
     */
    public static Configuration read(FlinkDeployment fd, ConfigMaps configMaps) {
        String namespace = fd.getMetadata().getNamespace();
        FlinkDeploymentSpec spec = fd.getSpec() == null ? new FlinkDeploymentSpec() : fd.getSpec();
        PodTemplateSpec common = spec.getPodTemplate();
        PodTemplateSpec jobManager =
                spec.getJobManager() == null ? null : spec.getJobManager().getPodTemplate();
        List<String> problems = new ArrayList<>();
        Map<String, String> env = environment(namespace, common, jobManager, configMaps, problems);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        Map<String, String> cluster = spec.getFlinkConfiguration() == null ? Map.of() : spec.getFlinkConfiguration();
        String[] args = spec.getJob() == null || spec.getJob().getArgs() == null
                ? new String[0]
                : spec.getJob().getArgs();
        return LineflowSettings.read(
                Configuration.fromMap(cluster),
                args,
                env,
                path -> file(path, namespace, common, jobManager, configMaps));
    }

    /** The main container's variables, the JobManager's template over the common one, by name. */
    private static Map<String, String> environment(
            String namespace,
            PodTemplateSpec common,
            PodTemplateSpec jobManager,
            ConfigMaps configMaps,
            List<String> problems) {
        Map<String, String> env = new LinkedHashMap<>();
        for (Container c : SpecReader.mainContainer(common, jobManager).parts()) {
            for (EnvFromSource from : c.getEnvFrom() == null ? List.<EnvFromSource>of() : c.getEnvFrom()) {
                if (from.getConfigMapRef() == null) {
                    continue; // a Secret: credentials, not read
                }
                String name = from.getConfigMapRef().getName();
                Map<String, String> data = configMaps.data(namespace, name);
                if (data == null) {
                    if (!Boolean.TRUE.equals(from.getConfigMapRef().getOptional())) {
                        problems.add("envFrom ConfigMap " + name + " does not exist in namespace " + namespace);
                    }
                    continue;
                }
                String prefix = from.getPrefix() == null ? "" : from.getPrefix();
                data.forEach((k, v) -> env.put(prefix + k, v));
            }
            for (EnvVar v : c.getEnv() == null ? List.<EnvVar>of() : c.getEnv()) {
                if (v.getValueFrom() == null) {
                    env.put(v.getName(), v.getValue() == null ? "" : v.getValue());
                } else if (v.getValueFrom().getConfigMapKeyRef() != null) {
                    var ref = v.getValueFrom().getConfigMapKeyRef();
                    Map<String, String> data = configMaps.data(namespace, ref.getName());
                    String value = data == null ? null : data.get(ref.getKey());
                    if (value != null) {
                        env.put(v.getName(), value);
                    } else if (!Boolean.TRUE.equals(ref.getOptional())) {
                        problems.add("env " + v.getName() + " names key " + ref.getKey() + " of ConfigMap "
                                + ref.getName() + ", which " + (data == null ? "does not exist" : "has no such key")
                                + " in namespace " + namespace);
                    }
                }
                // A Secret, a field or a resource: not a setting the audit reads.
            }
        }
        return env;
    }

    /** The properties file at {@code path} in the JobManager's main container, from its ConfigMap. */
    private static Properties file(
            String path, String namespace, PodTemplateSpec common, PodTemplateSpec jobManager, ConfigMaps configMaps)
            throws IOException {
        SpecReader.MainContainer main = SpecReader.mainContainer(common, jobManager);
        VolumeMount mount = null;
        String relative = null;
        for (VolumeMount m : main.mounts().values()) {
            String dir = m.getMountPath().endsWith("/") ? m.getMountPath() : m.getMountPath() + "/";
            String rest =
                    path.equals(m.getMountPath()) ? "" : path.startsWith(dir) ? path.substring(dir.length()) : null;
            if (rest != null
                    && (mount == null
                            || m.getMountPath().length() > mount.getMountPath().length())) {
                mount = m;
                relative = rest;
            }
        }
        String where = "the JobManager's " + SpecReader.MAIN_CONTAINER;
        if (mount == null) {
            throw new FileNotFoundException("no volume mounted in " + where + " holds it (a file in the image"
                    + " cannot be read from outside the pod; mount it from a ConfigMap)");
        }
        Volume volume = main.volumes().get(mount.getName());
        ConfigMapVolumeSource source = volume == null ? null : volume.getConfigMap();
        if (source == null) {
            throw new FileNotFoundException("it is on volume " + mount.getName() + " (" + SpecReader.typeOf(volume)
                    + "), not a ConfigMap: the audit reads the job's settings only from a ConfigMap");
        }
        String subPath = mount.getSubPath() == null || mount.getSubPath().isEmpty() ? null : mount.getSubPath();
        String inVolume = subPath == null ? relative : relative.isEmpty() ? subPath : subPath + "/" + relative;
        String key = null;
        if (source.getItems() == null || source.getItems().isEmpty()) {
            key = inVolume.contains("/") ? null : inVolume;
        } else {
            for (KeyToPath item : source.getItems()) {
                if (item.getPath().equals(inVolume)) {
                    key = item.getKey();
                }
            }
        }
        Map<String, String> data = configMaps.data(namespace, source.getName());
        if (data == null) {
            throw new FileNotFoundException(
                    "ConfigMap " + source.getName() + " does not exist in namespace " + namespace);
        }
        String text = key == null ? null : data.get(key);
        if (text == null) {
            throw new FileNotFoundException("ConfigMap " + source.getName() + " (volume " + mount.getName() + " at "
                    + mount.getMountPath() + ") has no key for " + inVolume);
        }
        Properties props = new Properties();
        props.load(new StringReader(text));
        return props;
    }
}
