package io.github.redissonratelimit.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.Redisson;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisBusyException;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;
import org.redisson.client.RedisOutOfMemoryException;
import org.redisson.client.RedisReadonlyException;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.BackendCalls;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.RedisServerProcess;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * Which Redis errors are an outage (the outage policy) and which are a bug of ours (loud): the replies as
 * redis-server 7.0.15 words them (captured with redis-cli, and below from a real server through Redisson).
 * Redis 7 tags every error raised inside a script with {@code script: <sha>, on @user_script:<line>.}.
 */
class BackendErrorsTest {

    /** What Redisson appends to a Redis error reply in its exception message. */
    private static final String REDISSON_SUFFIX = ". channel: [id: 0x5e1c2a3b, L:/127.0.0.1:50412 - "
            + "R:127.0.0.1/127.0.0.1:6379] data: CommandData [promise=java.util.concurrent.CompletableFuture@1, "
            + "command=(EVALSHA), params=[caeeee01384f6b04384c56d69c27aa65287fb306, 1, rate_limit:{k}], codec=null]";

    @ParameterizedTest
    @ValueSource(strings = {
        "OOM command not allowed when used memory > 'maxmemory'. script: caeeee01384f6b04384c56d69c27aa65287fb306, on @user_script:1.",
        "OOM command not allowed when used memory > 'maxmemory'.",
        "READONLY You can't write against a read only replica. script: caeeee01384f6b04384c56d69c27aa65287fb306, on @user_script:1.",
        "READONLY You can't write against a read only replica.",
        "NOREPLICAS Not enough good replicas to write. script: caeeee01384f6b04384c56d69c27aa65287fb306, on @user_script:1.",
        "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
        "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
        "NOSCRIPT No matching script. Please use EVAL.",
        "LOADING Redis is loading the dataset in memory",
        "CLUSTERDOWN The cluster is down",
        "CLUSTERDOWN Hash slot not served",
        "TRYAGAIN Multiple keys request during rehashing of slot",
        "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands "
                + "that may modify the data set are disabled, because this instance is configured to report errors "
                + "during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the "
                + "Redis logs for details about the RDB error. script: caeeee01384f6b04384c56d69c27aa65287fb306, on @user_script:1.",
        "ERR max number of clients reached",
    })
    void redisRefusalsAreOutages(String reply) {
        assertThat(BackendErrors.isBackendError(new RedisException(reply))).isTrue();
        assertThat(BackendErrors.isBackendError(new RedisException(reply + REDISSON_SUFFIX))).isTrue();
        assertThat(BackendErrors.isBackendError(new RedisException("Batch failed", new RedisException(reply)))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "ERR user_script:1: Requested permits amount cannot exceed defined rate script: 9fd6cbabb121b45411aaafe833edfff16204328d, on @user_script:1.",
        "ERR user_script:1: attempt to index local 'x' (a nil value) script: cf0efd7895bbde8aab6ffbb44ec6bca4bd5ef4c3, on @user_script:1.",
        "ERR Wrong number of args calling Redis command from script script: 8e2e5a3af2823f35b7b9044d93b76a76a002dec6, on @user_script:1.",
        "WRONGTYPE Operation against a key holding the wrong kind of value script: f78bb4a03116d180c1e8eef18977d3433ea9c989, on @user_script:1.",
        // Redis 6 words it differently, with the same tag
        "ERR Error running script (call to f_9fd6cbabb121b45411aaafe833edfff16204328d): @user_script:54: user_script:54: "
                + "Requested permits amount cannot exceed defined rate",
    })
    void errorsOfOurScriptsAreNotOutages(String reply) {
        assertThat(BackendErrors.isBackendError(new RedisException(reply))).isFalse();
        assertThat(BackendErrors.isBackendError(new RedisException(reply + REDISSON_SUFFIX))).isFalse();
    }

    @Test
    void redissonsRefusalExceptionsAreOutagesWhateverTheirMessage() {
        assertThat(BackendErrors.isBackendError(new RedisOutOfMemoryException(
                "command not allowed when used memory > 'maxmemory'. script: caeeee01384f6b04384c56d69c27aa65287fb306, "
                        + "on @user_script:1."))).isTrue();
        assertThat(BackendErrors.isBackendError(new RedisReadonlyException(
                "You can't write against a read only replica. on @user_script:1."))).isTrue();
        assertThat(BackendErrors.isBackendError(new RedisBusyException("on @user_script:1."))).isTrue();
        assertThat(BackendErrors.isBackendError(new RedisConnectionException("Unable to connect"))).isTrue();
        assertThat(BackendErrors.isBackendError(new TimeoutException())).isTrue();
        assertThat(BackendErrors.isBackendError(new CancellationException())).isTrue();
        assertThat(BackendErrors.isBackendError(new IllegalStateException("OOM"))).isFalse();
    }

    @Test
    void theErrorCodeIsTheWholeFirstWord() {
        assertThat(BackendErrors.errorCode("OOM command not allowed")).isEqualTo("OOM");
        assertThat(BackendErrors.errorCode("-READONLY You can't")).isEqualTo("READONLY");
        assertThat(BackendErrors.errorCode("BUSYKEY Target key name already exists.")).isEqualTo("BUSYKEY");
        assertThat(BackendErrors.errorCode("OOMPH")).isEqualTo("OOMPH");
        assertThat(BackendErrors.errorCode("Oom")).isEmpty();
        assertThat(BackendErrors.errorCode(null)).isEmpty();
        assertThat(BackendErrors.isBackendError(new RedisException("BUSYKEY x on @user_script:1."))).isFalse();
    }

    // ---- the same, from a real redis-server through Redisson ----

    private static RedisServerProcess server;
    private static RedissonClient redisson;

    @BeforeAll
    static void startRedis() {
        server = RedisServerProcess.startOnFreePort();
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + server.port()).setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(4).setRetryAttempts(0).setTimeout(3_000);
        redisson = Redisson.create(config);
    }

    @AfterAll
    static void stopRedis() {
        redisson.shutdown();
        server.close();
    }

    @AfterEach
    void resetRedis() {
        try (RespClient cli = cli()) {
            cli.command("REPLICAOF", "NO", "ONE");
            cli.command("CONFIG", "SET", "maxmemory", "0");
            cli.command("CONFIG", "SET", "min-replicas-to-write", "0");
            cli.command("CONFIG", "SET", "replica-serve-stale-data", "yes");
            cli.command("CONFIG", "SET", "busy-reply-threshold", "5000");
            cli.command("FLUSHALL");
        }
    }

    private static RespClient cli() {
        return new RespClient("127.0.0.1", server.port());
    }

    private static final String WRITE = "return redis.call('set', KEYS[1], '1')";
    private static final LimitSpec SPEC = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    private static Throwable eval(String script) {
        return catchThrowable(() -> redisson.getScript(StringCodec.INSTANCE).eval("k", RScript.Mode.READ_WRITE,
                script, RScript.ReturnType.VALUE, List.of("k")));
    }

    private static Throwable acquire(long permits) {
        return catchThrowable(() -> BackendCalls.acquire(new RedissonRateLimitBackend(redisson), "rate_limit:{k}", SPEC, permits));
    }

    private static void report(String what, Throwable error) {
        System.out.println("[redis-refusal] " + what + ": " + error.getClass().getName() + ": " + error.getMessage());
    }

    @Test
    void outOfMemoryInsideOurScriptIsAnOutage() {
        try (RespClient cli = cli()) {
            cli.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
            cli.command("CONFIG", "SET", "maxmemory", "1");
        }
        Throwable written = eval(WRITE);
        Throwable acquired = acquire(1);
        report("OOM, a script's write", written);
        report("OOM, acquire", acquired);

        assertThat(written).isInstanceOf(RedisException.class).hasMessageContaining("user_script");
        assertThat(BackendErrors.isBackendError(written)).isTrue();
        assertThat(acquired).isInstanceOf(RedisException.class).hasMessageContaining("user_script");
        assertThat(BackendErrors.isBackendError(acquired)).isTrue();
    }

    @Test
    void outOfMemoryInLimitsDecidedInOneScriptCallIsAnOutageForEach() {
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(redisson);
        try (RespClient cli = cli()) {
            cli.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
            cli.command("CONFIG", "SET", "maxmemory", "1");
        }
        List<CompletableFuture<Decision>> decisions = backend.acquireAll(List.of(
                AcquireRequest.of("rate_limit:{user}", SPEC, 1), AcquireRequest.of("rate_limit:{region}", SPEC, 1)))
                .stream().map(stage -> stage.toCompletableFuture()).toList();
        for (CompletableFuture<Decision> decision : decisions) {
            Throwable refused = catchThrowable(() -> BackendCalls.await(decision));
            report("OOM, acquire-many", refused);
            assertThat(refused).isInstanceOf(RedisException.class).hasMessageStartingWith("OOM ")
                    .hasMessageContaining("user_script");
            assertThat(BackendErrors.isBackendError(refused)).isTrue();
        }
    }

    @Test
    void aReplicaRefusingWritesIsAnOutage() {
        try (RespClient cli = cli()) {
            cli.command("REPLICAOF", "127.0.0.1", String.valueOf(RedisServerProcess.freePort()));
        }
        Throwable readonly = eval(WRITE);
        report("READONLY", readonly);
        assertThat(readonly).isInstanceOf(RedisException.class);
        assertThat(BackendErrors.isBackendError(readonly)).isTrue();

        try (RespClient cli = cli()) {
            cli.command("CONFIG", "SET", "replica-serve-stale-data", "no");
        }
        Throwable masterDown = eval(WRITE);
        report("MASTERDOWN", masterDown);
        assertThat(masterDown).isInstanceOf(RedisException.class);
        assertThat(BackendErrors.isBackendError(masterDown)).isTrue();
    }

    @Test
    void aMasterWithoutItsReplicasIsAnOutage() {
        try (RespClient cli = cli()) {
            cli.command("CONFIG", "SET", "min-replicas-to-write", "1");
        }
        Throwable noReplicas = eval(WRITE);
        report("NOREPLICAS", noReplicas);
        assertThat(noReplicas).isInstanceOf(RedisException.class).hasMessageContaining("user_script");
        assertThat(BackendErrors.isBackendError(noReplicas)).isTrue();
    }

    @Test
    void aBusyServerAndAMissingScriptAreOutages() throws Exception {
        Throwable noScript = catchThrowable(() -> redisson.getScript(StringCodec.INSTANCE).evalSha("k",
                RScript.Mode.READ_ONLY, "0123456789012345678901234567890123456789", RScript.ReturnType.VALUE,
                List.of("k")));
        report("NOSCRIPT", noScript);
        assertThat(noScript).isInstanceOf(RedisException.class);
        assertThat(BackendErrors.isBackendError(noScript)).isTrue();

        try (RespClient cli = cli(); RespClient looping = cli()) {
            cli.command("CONFIG", "SET", "busy-reply-threshold", "50");
            CompletableFuture<Object> loop = CompletableFuture.supplyAsync(() -> catchThrowable(
                    () -> looping.command("EVAL", "local i = 0 while true do i = i + 1 end", "0")));
            Thread.sleep(300);
            Throwable busy = eval(WRITE);
            cli.command("SCRIPT", "KILL");
            loop.get();
            report("BUSY", busy);
            assertThat(busy).isInstanceOf(RedisException.class);
            assertThat(BackendErrors.isBackendError(busy)).isTrue();
        }
    }

    @Test
    void errorsOfTheScriptItselfAreNotOutages() {
        Throwable runtime = eval("local x = nil; return x.y");
        Throwable tooMany = acquire(SPEC.rate() + 1);
        report("Lua runtime error", runtime);
        report("acquire, permits > rate", tooMany);

        assertThat(BackendErrors.isBackendError(runtime)).isFalse();
        assertThat(tooMany).hasMessageContaining("Requested permits amount cannot exceed defined rate");
        assertThat(BackendErrors.isBackendError(tooMany)).isFalse();
    }
}
