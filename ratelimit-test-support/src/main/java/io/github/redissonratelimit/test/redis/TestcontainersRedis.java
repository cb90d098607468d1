package io.github.redissonratelimit.test.redis;

/**
 * Starts {@code redis:7} with Testcontainers when both the library and a Docker engine are there.
 * Testcontainers is an optional dependency: every reference to it stays behind these checks.
 */
final class TestcontainersRedis {

    private TestcontainersRedis() {
    }

    /**
     * The system property that keeps the tests off Docker; outside 'ratelimit.', where the starter fails startup on a
     * name that is no setting of its own.
     */
    static final String NO_DOCKER = "redisson-ratelimit.tests.no-docker";

    static RedisEndpoint tryStart() {
        if (Boolean.getBoolean(NO_DOCKER) || !onClasspath() || !dockerEngineMayAnswer()) {
            return null;
        }
        try {
            return Started.start();
        }
        catch (Throwable unavailable) {
            // no Docker engine (or no image): the caller falls back to a local redis-server
            return null;
        }
    }

    /** Spares Testcontainers' error report where no engine can answer: no DOCKER_HOST and no local socket. */
    private static boolean dockerEngineMayAnswer() {
        String host = System.getenv("DOCKER_HOST");
        return (host != null && !host.isBlank())
                || java.nio.file.Files.exists(java.nio.file.Path.of("/var/run/docker.sock"))
                || java.nio.file.Files.exists(java.nio.file.Path.of(System.getProperty("user.home"), ".docker", "run",
                        "docker.sock"))
                || java.nio.file.Files.exists(java.nio.file.Path.of(System.getProperty("user.home"),
                        ".testcontainers.properties"));
    }

    private static boolean onClasspath() {
        try {
            Class.forName("org.testcontainers.DockerClientFactory", false, TestcontainersRedis.class.getClassLoader());
            return true;
        }
        catch (ClassNotFoundException ex) {
            return false;
        }
    }

    private static final class Started {

        static RedisEndpoint start() {
            if (!org.testcontainers.DockerClientFactory.instance().isDockerAvailable()) {
                return null;
            }
            @SuppressWarnings("resource")
            org.testcontainers.containers.GenericContainer<?> redis =
                    new org.testcontainers.containers.GenericContainer<>("redis:7").withExposedPorts(6379);
            redis.start();
            return new RedisEndpoint(redis.getHost(), redis.getMappedPort(6379), "Testcontainers redis:7");
        }
    }
}
