package io.github.redissonratelimit.redis;

import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The names an in-flight limit's leases give their holders, so that an operator sees who holds how many:
 * {@code <pid>@<host>} for the first backend of this JVM, {@code <pid>@<host>#<n>} for the n-th. The host is the
 * {@code HOSTNAME} variable when set (a Kubernetes pod's name), else the local host's name.
 */
final class LeaseHolders {

    private static final int LONGEST_HOST = 48;

    private static final AtomicInteger backends = new AtomicInteger();

    private LeaseHolders() {
    }

    /** The name of a new backend's leases: no spaces (it is one word of a script's argument), at most ~70 chars. */
    static String next() {
        int backend = backends.incrementAndGet();
        String name = ProcessHandle.current().pid() + "@" + host();
        return backend == 1 ? name : name + "#" + backend;
    }

    private static String host() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            }
            catch (Exception ex) { // no name resolution: the pid still tells the instances of one host apart
                host = "localhost";
            }
        }
        String word = host.replaceAll("[^A-Za-z0-9._-]", "_");
        return word.length() > LONGEST_HOST ? word.substring(0, LONGEST_HOST) : word;
    }
}
