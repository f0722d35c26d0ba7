package io.lineflow.drill.local;

import io.lineflow.testing.Commands;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Network partitions on loopback: packets dropped, not refused, by iptables rules in a chain of
 * this JVM's own, from processes told apart by their cgroup (v2): each process that can be cut off
 * starts inside a cgroup of its own (a socket belongs to the cgroup its process was in when the
 * socket was created, so the process must be born there). Only what this object added is ever
 * removed: its chain, the one jump to it from {@code OUTPUT}, its cgroups.
 *
 * <p>Needs root, iptables with the {@code cgroup} match and a cgroup v2 hierarchy ({@code
 * /sys/fs/cgroup} or the hybrid layout's {@code /sys/fs/cgroup/unified}).
 */
final class LoopbackPartitions implements AutoCloseable {
    private static final Duration IPTABLES = Duration.ofSeconds(20);

    /** The cgroup v2 root this machine mounts. */
    private final Path root;
    /** This JVM's cgroup folder under {@link #root}, and the iptables chain: both named after its pid. */
    private final String name = "lineflow-soak-" + ProcessHandle.current().pid();

    private boolean chainInstalled;

    private LoopbackPartitions(Path root) {
        this.root = root;
    }

    /** Ready to cut, or an error saying which of its needs this machine lacks. */
    static LoopbackPartitions create() {
        Path root = Files.exists(Path.of("/sys/fs/cgroup/cgroup.controllers"))
                ? Path.of("/sys/fs/cgroup")
                : Path.of("/sys/fs/cgroup/unified");
        if (!Files.exists(root.resolve("cgroup.procs"))) {
            throw new IllegalStateException("network partitions need a cgroup v2 hierarchy (neither "
                    + "/sys/fs/cgroup nor /sys/fs/cgroup/unified is one): iptables tells processes apart by it");
        }
        if (Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .noneMatch(dir -> !dir.isEmpty() && Files.isExecutable(Path.of(dir, "iptables")))) {
            throw new IllegalStateException("network partitions need iptables, which is not on the PATH: install"
                    + " the package iptables (`make soak` does when it is missing)");
        }
        LoopbackPartitions p = new LoopbackPartitions(root);
        try {
            Files.createDirectories(root.resolve(p.name));
        } catch (IOException e) {
            throw new IllegalStateException(
                    "network partitions need root (cannot create the cgroup " + root.resolve(p.name) + ": "
                            + e.getMessage() + ")",
                    e);
        }
        p.iptables("-N", p.name);
        p.chainInstalled = true;
        p.iptables("-I", "OUTPUT", "1", "-o", "lo", "-j", p.name);
        Runtime.getRuntime().addShutdownHook(new Thread(p::close, "loopback-partitions-cleanup"));
        return p;
    }

    /**
     * The command that starts {@code command} inside the cgroup {@code process} (created here), as
     * the same pid: a shell writes its own pid to the cgroup and then execs the command.
     */
    List<String> inCgroup(String process, List<String> command) {
        Path cgroup = root.resolve(name).resolve(process);
        try {
            Files.createDirectories(cgroup);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> wrapped = new ArrayList<>(
                List.of("/bin/sh", "-c", "echo $$ > '" + cgroup.resolve("cgroup.procs") + "' && exec \"$@\"", "sh"));
        wrapped.addAll(command);
        return wrapped;
    }

    /** Drops every TCP packet the processes of these cgroups send to {@code ports} on loopback. */
    void dropFrom(List<String> processes, List<Integer> ports) {
        for (String process : processes) {
            for (int port : ports) {
                iptables(
                        "-A",
                        name,
                        "-m",
                        "cgroup",
                        "--path",
                        name + "/" + process,
                        "-p",
                        "tcp",
                        "--dport",
                        String.valueOf(port),
                        "-j",
                        "DROP");
            }
        }
    }

    /** Drops every TCP packet to or from {@code port} on loopback, whoever sends it. */
    void dropPort(int port) {
        iptables("-A", name, "-p", "tcp", "--dport", String.valueOf(port), "-j", "DROP");
        iptables("-A", name, "-p", "tcp", "--sport", String.valueOf(port), "-j", "DROP");
    }

    /** Every drop removed: packets flow again (TCP retransmits what was lost). */
    void heal() {
        iptables("-F", name);
    }

    /** The chain, its jump and the cgroups removed; the cluster's processes must be gone by then. */
    @Override
    public synchronized void close() {
        if (chainInstalled) {
            Commands.exec(
                    Path.of("."),
                    Map.of(),
                    null,
                    IPTABLES,
                    List.of("iptables", "-D", "OUTPUT", "-o", "lo", "-j", name));
            Commands.exec(Path.of("."), Map.of(), null, IPTABLES, List.of("iptables", "-F", name));
            Commands.exec(Path.of("."), Map.of(), null, IPTABLES, List.of("iptables", "-X", name));
            chainInstalled = false;
        }
        Path mine = root.resolve(name);
        if (Files.isDirectory(mine)) {
            try (var children = Files.list(mine)) {
                // A cgroup folder is removed with rmdir; its files are the kernel's, not to delete.
                children.filter(Files::isDirectory).forEach(c -> c.toFile().delete());
            } catch (IOException e) {
                // a process still inside keeps its cgroup; nothing else to do here
            }
            mine.toFile().delete();
        }
    }

    private void iptables(String... args) {
        List<String> cmd = new ArrayList<>(List.of("iptables"));
        cmd.addAll(List.of(args));
        Commands.run(Path.of("."), IPTABLES, cmd);
    }
}
