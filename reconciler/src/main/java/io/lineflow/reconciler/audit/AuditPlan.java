package io.lineflow.reconciler.audit;

import static io.lineflow.reconciler.ReconcilerOptions.AUDIT_JDBC_URL;
import static io.lineflow.reconciler.ReconcilerOptions.AUDIT_JDBC_USER;
import static io.lineflow.reconciler.ReconcilerOptions.AUDIT_MAX_RECORDS;
import static io.lineflow.reconciler.ReconcilerOptions.AUDIT_SPAN;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_BOOTSTRAP;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_SECURITY_PROTOCOL;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_TIMEOUT;

import io.lineflow.reconciler.observe.Annotations;
import io.lineflow.settings.LineflowOptions;
import io.lineflow.settings.LineflowSettings;

import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.CommonClientConfigs;
import org.postgresql.Driver;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the audit of one deployment reads (pure): the topic, the job's consumer group and the rules
 * its job's settings give it; reached with the reconciler's own connection settings ({@code
 * kafka.*}, {@code audit.jdbc-*}, the password from its environment), or the deployment's
 * annotations {@code lineflow.io/kafka-bootstrap} and {@code lineflow.io/audit-jdbc-url}.
 *
 * <p>Without an annotation, the reconciler's connection must lead where the job's does: a broker
 * in common with {@code lineflow.kafka.bootstrap-servers}, and the host, port and database of
 * {@code lineflow.jdbc.url}. Otherwise the audit would judge one job's table by another's topic, or
 * read another job's table, and call every row wrong: the deployment is not audited, and says why.
 */
public final class AuditPlan {
    /** Why a deployment cannot be audited now; the message says what to change. */
    public static final class NotAuditable extends Exception {
        private static final long serialVersionUID = 1L;

        public NotAuditable(String message) {
            super(message);
        }
    }

    private AuditPlan() {}

    /**
     * The audit's settings for a deployment whose job has the (checked) settings {@code job}.
     *
     * @throws NotAuditable when the reconciler's connection does not lead to the job's topic or table
     */
    static Audit.Settings of(
            Configuration job, Map<String, String> annotations, Configuration reconciler, String password)
            throws NotAuditable {
        String bootstrap = annotations.get(Annotations.KAFKA_BOOTSTRAP);
        if (bootstrap == null || bootstrap.isBlank()) {
            bootstrap = reconciler.get(KAFKA_BOOTSTRAP);
            String jobs = job.get(LineflowOptions.KAFKA_BOOTSTRAP_SERVERS);
            if (brokers(jobs).stream().noneMatch(brokers(bootstrap)::contains)) {
                throw new NotAuditable(
                        "the job reads Kafka at " + jobs + " (" + LineflowOptions.KAFKA_BOOTSTRAP_SERVERS.key()
                                + ") and the reconciler's kafka.bootstrap-servers is " + bootstrap
                                + ", which names none of those brokers: the audit would read another cluster's topic."
                                + " Annotate the deployment " + Annotations.KAFKA_BOOTSTRAP
                                + " with the address the reconciler reaches the job's brokers at");
            }
        }
        String jdbcUrl = annotations.get(Annotations.AUDIT_JDBC_URL);
        if (jdbcUrl == null || jdbcUrl.isBlank()) {
            jdbcUrl = reconciler.get(AUDIT_JDBC_URL);
            String jobs = database(job.get(LineflowOptions.JDBC_URL));
            String audits = database(jdbcUrl);
            if (!jobs.equals(audits)) {
                throw new NotAuditable("the job writes to the database " + jobs + " ("
                        + LineflowOptions.JDBC_URL.key() + ") and the reconciler's audit.jdbc-url reads " + audits
                        + ": the audit would judge another job's table. Annotate the deployment "
                        + Annotations.AUDIT_JDBC_URL + " with a JDBC URL of the job's database");
            }
        }
        return new Audit.Settings(
                bootstrap.trim(),
                Map.of(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, reconciler.get(KAFKA_SECURITY_PROTOCOL).name),
                job.get(LineflowOptions.KAFKA_TOPIC),
                job.get(LineflowOptions.KAFKA_GROUP_ID),
                reconciler.get(AUDIT_SPAN),
                LineflowSettings.rules(job),
                reconciler.get(AUDIT_MAX_RECORDS),
                jdbcUrl.trim(),
                reconciler.get(AUDIT_JDBC_USER),
                password,
                reconciler.get(KAFKA_TIMEOUT).plusSeconds(25));
    }

    private static Set<String> brokers(String bootstrap) {
        return Arrays.stream(bootstrap.split(","))
                .map(b -> b.trim().toLowerCase(Locale.ROOT))
                .filter(b -> !b.isEmpty())
                .collect(Collectors.toSet());
    }

    /** A PostgreSQL URL's server and database, {@code host:port/database}, as PgJDBC reads it. */
    static String database(String jdbcUrl) {
        Properties p = jdbcUrl == null ? null : Driver.parseURL(jdbcUrl.trim(), new Properties());
        if (p == null) {
            return "(not a PostgreSQL JDBC URL)";
        }
        String[] hosts = p.getProperty("PGHOST", "localhost").split(",");
        String[] ports = p.getProperty("PGPORT", "5432").split(",");
        StringBuilder servers = new StringBuilder();
        for (int i = 0; i < hosts.length; i++) {
            servers.append(i == 0 ? "" : ",")
                    .append(hosts[i].toLowerCase(Locale.ROOT))
                    .append(':')
                    .append(i < ports.length ? ports[i] : ports[ports.length - 1]);
        }
        return servers + "/" + p.getProperty("PGDBNAME", "");
    }
}
