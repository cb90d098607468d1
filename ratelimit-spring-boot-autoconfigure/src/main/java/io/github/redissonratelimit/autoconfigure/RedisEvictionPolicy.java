package io.github.redissonratelimit.autoconfigure;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNode.InfoSection;
import org.redisson.api.redisnode.RedisNodeAsync;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.config.Config;

import io.github.redissonratelimit.limiter.Completions;

/**
 * The {@code maxmemory-policy} of one Redis master, as the rate limiter sees it: under any policy but
 * {@code noeviction} a full Redis evicts keys, limiter keys included (they have a TTL, so {@code volatile-*}
 * policies take them as well as {@code allkeys-*}), and an evicted limiter forgets the permits it granted: its
 * callers get more than their limit, and nothing says so. Under {@code noeviction} a full Redis refuses the
 * limiter's writes instead, and each limit applies its outage policy ({@code ratelimit.on-backend-error}).
 *
 * <p>Read with {@code CONFIG GET maxmemory-policy}, or, where {@code CONFIG} is disabled or denied (as on most
 * managed Redis services), from {@code INFO memory}; when neither answers the policy is unknown.
 *
 * @param address the master, {@code host:port}
 * @param policy the policy, e.g. {@code noeviction}; null when it could not be read
 * @param problem why it could not be read; null when it was
 */
public record RedisEvictionPolicy(String address, String policy, String problem) {

    /** The one policy under which Redis never evicts a limiter's key. */
    public static final String NO_EVICTION = "noeviction";

    /** What {@link #describe()} says of a policy that could not be read. */
    public static final String UNKNOWN = "unknown";

    /** Whether the policy could be read. */
    public boolean known() {
        return policy != null;
    }

    /** Whether a full Redis may evict the limiter's keys: any known policy but {@code noeviction}. */
    public boolean evictsLimiterKeys() {
        return policy != null && !NO_EVICTION.equals(policy);
    }

    /** The policy, or {@value #UNKNOWN}. */
    public String describe() {
        return policy != null ? policy : UNKNOWN;
    }

    /**
     * Reads the policy of every master Redisson writes to (every cluster master, the Sentinel's master, the
     * single server). The stage never fails: a master whose policy could not be read is {@linkplain #known()
     * unknown}, with the reason.
     */
    public static CompletableFuture<List<RedisEvictionPolicy>> read(RedissonClient redisson) {
        Map<String, CompletableFuture<RedisEvictionPolicy>> reads;
        try {
            reads = readEach(redisson);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.completedFuture(List.of(new RedisEvictionPolicy(UNKNOWN, null,
                    "the Redis masters are not known (" + ex.getMessage() + ")")));
        }
        return CompletableFuture.allOf(reads.values().toArray(CompletableFuture[]::new))
                .thenApply(done -> reads.values().stream().map(CompletableFuture::join).toList());
    }

    /**
     * The read of each master's policy, by master ({@code host:port}), each on its own: a master that does not
     * answer holds up only its own (the health indicator waits a bounded time for each). Each stage never fails.
     *
     * @throws RuntimeException when the masters are not known
     */
    public static Map<String, CompletableFuture<RedisEvictionPolicy>> readEach(RedissonClient redisson) {
        Map<String, CompletableFuture<RedisEvictionPolicy>> reads = new LinkedHashMap<>();
        masters(redisson).forEach(master -> reads.put(master.address(), readMaster(master)));
        return reads;
    }

    /**
     * The WARN line for the masters whose policy evicts limiter keys, naming the setting to use and what it
     * changes; null when none does.
     */
    public static String warning(List<RedisEvictionPolicy> policies) {
        List<RedisEvictionPolicy> evicting = policies.stream().filter(RedisEvictionPolicy::evictsLimiterKeys).toList();
        if (evicting.isEmpty()) {
            return null;
        }
        return "Redis runs with " + evicting.stream().map(policy -> "maxmemory-policy " + policy.policy() + " at "
                + policy.address()).collect(Collectors.joining(", ")) + ": when it is full it evicts keys, rate limiter "
                + "keys included (they have a TTL, so volatile-* policies evict them too), and an evicted limiter "
                + "forgets the permits it granted, so callers get more than their limit without any error. Set "
                + "maxmemory-policy noeviction: a full Redis then refuses the limiter's writes and each limit applies "
                + "its outage policy (ratelimit.on-backend-error) instead (see docs/operations.md).";
    }

    /** The INFO line for the masters whose policy could not be read; null when every policy is known. */
    public static String unknown(List<RedisEvictionPolicy> policies) {
        List<RedisEvictionPolicy> unknown = policies.stream().filter(policy -> !policy.known()).toList();
        if (unknown.isEmpty()) {
            return null;
        }
        return "Could not read the maxmemory-policy of Redis; make sure it is noeviction, or a full Redis may evict "
                + "rate limiter keys (see docs/operations.md). " + unknown.stream()
                        .map(policy -> policy.address() + ": " + policy.problem()).collect(Collectors.joining("; "));
    }

    private static CompletableFuture<RedisEvictionPolicy> readMaster(Master master) {
        return ask(() -> master.node().getConfigAsync("maxmemory-policy"))
                .handle((values, error) -> {
                    String policy = values == null ? null : values.get("maxmemory-policy");
                    return policy != null && !policy.isBlank() ? CompletableFuture.completedFuture(
                            new RedisEvictionPolicy(master.address(), policy.trim(), null))
                            : fromInfo(master, error == null ? "CONFIG GET gave no maxmemory-policy"
                                    : "CONFIG GET failed: " + describe(error));
                })
                .thenCompose(result -> result);
    }

    private static CompletableFuture<RedisEvictionPolicy> fromInfo(Master master, String configProblem) {
        return ask(() -> master.node().infoAsync(InfoSection.MEMORY))
                .handle((info, error) -> {
                    String policy = info == null ? null : info.get("maxmemory_policy");
                    if (policy != null && !policy.isBlank()) {
                        return new RedisEvictionPolicy(master.address(), policy.trim(), null);
                    }
                    return new RedisEvictionPolicy(master.address(), null, configProblem + ", "
                            + (error == null ? "INFO memory gave no maxmemory_policy" : "INFO failed: " + describe(error)));
                });
    }

    /** The command's answer; a command that cannot even be sent (e.g. a client shut down) fails the stage. */
    private static CompletableFuture<Map<String, String>> ask(Supplier<RFuture<Map<String, String>>> command) {
        try {
            return command.get().toCompletableFuture();
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    private static String describe(Throwable error) {
        Throwable cause = Completions.unwrap(error);
        String message = cause.getMessage();
        if (message == null) {
            return cause.getClass().getSimpleName();
        }
        // Redisson appends the channel and the command data to Redis's answer: keep the answer
        int channel = message.indexOf(". channel:");
        return channel > 0 ? message.substring(0, channel) : message;
    }

    private static List<Master> masters(RedissonClient redisson) {
        Config config = redisson.getConfig();
        if (config == null) {
            throw new IllegalStateException("the client does not tell its configuration");
        }
        List<Master> masters = new ArrayList<>();
        if (config.isClusterConfig()) {
            redisson.getRedisNodes(RedisNodes.CLUSTER).getMasters().forEach(master -> masters.add(Master.of(master, master)));
        }
        else if (config.isSentinelConfig()) {
            var master = redisson.getRedisNodes(RedisNodes.SENTINEL_MASTER_SLAVE).getMaster();
            masters.add(Master.of(master, master));
        }
        else {
            var master = redisson.getRedisNodes(RedisNodes.SINGLE).getInstance();
            masters.add(Master.of(master, master));
        }
        return masters;
    }

    private record Master(String address, RedisNodeAsync node) {

        static Master of(RedisNode node, RedisNodeAsync async) {
            InetSocketAddress address = node.getAddr();
            return new Master(address.getHostString() + ":" + address.getPort(), async);
        }
    }
}
