package io.github.redissonratelimit.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RMap;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.api.listener.StatusListener;
import org.redisson.client.codec.StringCodec;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.OpPlus;
import org.springframework.expression.spel.ast.StringLiteral;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import io.github.redissonratelimit.admin.RateLimiters;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.key.LogSafe;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend;
import io.github.redissonratelimit.operation.DeclaredRateLimits;
import io.github.redissonratelimit.operation.LimitOverride;
import io.github.redissonratelimit.operation.LimitOverrides;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;

/**
 * {@link RateLimiters} on Redis, for the limiters of one {@link LimiterNaming}.
 *
 * <ul>
 * <li>Resets delete keys: one limiter's directly (its keys share a hash slot), a limit's or every limiter's found
 * with {@code SCAN} on every master (Redisson's key iteration) and deleted in batches of single-key {@code DEL}s,
 * which Redisson sends to each key's node, so they work on a cluster.</li>
 * <li>Overrides live in the hash {@code <prefix>%overrides} (field: limit name; the {@code %} keeps it apart from
 * every limiter name, whose escaped keys have {@code %} only before two hex digits), which each instance reads
 * when it {@link #start()}s and again whenever told.</li>
 * <li>Every write is told to every instance on the topic {@code <prefix>%events}: each drops what it remembers
 * of the limiters concerned (the local rejection cache, and which limiters the backend compared with their stored
 * config) or re-reads the overrides, then confirms on the same topic. A write returns once every instance that
 * received it has confirmed, or after one second.</li>
 * </ul>
 *
 * <p>What each instance remembers is found by walking its backend: {@link LocalRejectionCache},
 * {@link ResilientRateLimitBackend} and {@link WaitingRateLimitBackend} are looked through to a
 * {@link RedissonRateLimitBackend}; a decorator of another type ends the walk.
 */
public final class RedissonRateLimiters implements RateLimiters {

    private static final Log logger = LogFactory.getLog(RateLimiters.class);

    private static final Duration CONFIRMATION_TIMEOUT = Duration.ofSeconds(1);
    private static final int SCAN_COUNT = 1_000;
    private static final int DELETE_BATCH = 500;

    private final Shared shared;
    private final String actor;

    /**
     * @param declared the declared limits (read at each call: they are complete once the context has started)
     * @param overrides the overrides the interceptor applies, which this keeps as Redis says
     * @param backend this instance's backend, walked for what it remembers of limiters
     */
    public RedissonRateLimiters(RedissonClient redisson, LimiterNaming naming, Supplier<DeclaredRateLimits> declared,
            LimitOverrides overrides, Supplier<? extends RateLimitBackend> backend) {
        this.shared = new Shared(redisson, naming, declared, overrides, backend);
        this.actor = null;
    }

    private RedissonRateLimiters(Shared shared, String actor) {
        this.shared = shared;
        this.actor = actor;
    }

    /**
     * Subscribes to the events of other instances, then reads the overrides stored in Redis. A Redis that does not
     * answer is logged, not thrown: the declared limits apply until the next event.
     */
    public void start() {
        try {
            shared.listenerId = shared.topic.addListener(String.class, (channel, message) -> onMessage(message));
            shared.statusListenerId = shared.topic.addListener(new Resubscriptions());
            reloadOverrides().toCompletableFuture().join();
        }
        catch (RuntimeException ex) {
            logger.warn("Could not subscribe to " + shared.channel + " or read the rate limit overrides from "
                    + shared.overridesKey + "; the declared limits apply, and resets and overrides made on other "
                    + "instances do not reach this one (" + ex + ")");
            logger.debug("Subscribing to rate limit events failed", ex);
        }
    }

    /** Stops listening to other instances. */
    public void stop() {
        Integer id = shared.listenerId;
        Integer statusId = shared.statusListenerId;
        if (id != null) {
            shared.listenerId = null;
            shared.statusListenerId = null;
            try {
                shared.topic.removeListener(statusId != null ? new Integer[] { id, statusId } : new Integer[] { id });
            }
            catch (RuntimeException ex) {
                logger.debug("Could not unsubscribe from " + shared.channel, ex);
            }
        }
    }

    @Override
    public RateLimiters by(String actor) {
        return new RedissonRateLimiters(shared, actor);
    }

    @Override
    public LimitState state(String name, String key) {
        List<RateLimitOperation> operations = shared.overrides.apply(named(name));
        String limiterName = shared.naming.limiterName(logicalKey(operations.get(0), key));
        return join(backend().state(limiterName, operations.get(0).spec()).toCompletableFuture());
    }

    @Override
    public ResetResult reset(String name, String key) {
        List<RateLimitOperation> operations = named(name);
        RateLimitOperation first = operations.get(0);
        String logicalKey = logicalKey(first, key);
        String limiterName = shared.naming.limiterName(logicalKey);
        List<String> keys = new ArrayList<>(List.of(limiterName, LimiterNaming.valueKey(limiterName),
                LimiterNaming.permitsKey(limiterName)));
        if (operations.stream().anyMatch(operation -> operation.spec().mode() == RateLimitMode.PER_CLIENT)) {
            for (String perClient : List.of(LimiterNaming.valueKey(limiterName), LimiterNaming.permitsKey(limiterName))) {
                shared.redisson.getKeys().getKeysByPattern(LimiterNaming.glob(perClient) + ":*", SCAN_COUNT)
                        .forEach(keys::add);
            }
        }
        long deleted = delete(keys);
        int confirmed = broadcast(Shared.RESET, List.of("=" + limiterName));
        logger.info("Reset rate limit '" + first.name() + "' for key '" + LogSafe.text(logicalKey) + "' (limiter "
                + LogSafe.text(limiterName) + ", " + deleted + " Redis key(s) deleted, " + confirmed
                + " instance(s) confirmed) by " + who());
        return new ResetResult(first.name(), logicalKey, deleted, confirmed);
    }

    @Override
    public ResetResult reset(String name) {
        List<RateLimitOperation> operations = named(name);
        String limit = operations.get(0).name();
        Set<String> exactNames = new LinkedHashSet<>();
        Set<String> keyPrefixes = new LinkedHashSet<>();
        for (RateLimitOperation operation : operations) {
            if (operation.key() == null) {
                exactNames.add(shared.naming.limiterName(operation.name()));
                continue;
            }
            String literal = literalPrefix(operation.key().source());
            if (literal.isEmpty()) {
                throw new IllegalArgumentException("Rate limit '" + limit + "' on " + operation.method()
                        + " has the key expression " + operation.key().source() + ", which does not start with a "
                        + "literal, so its keys cannot be told apart from other limits': reset its callers one by "
                        + "one, or start the key with a literal, e.g. key = \"'" + limit + ":' + "
                        + operation.key().source() + "\"");
            }
            keyPrefixes.add(literal);
        }
        List<String> keys = new ArrayList<>();
        for (String limiterName : exactNames) {
            keys.addAll(List.of(limiterName, LimiterNaming.valueKey(limiterName), LimiterNaming.permitsKey(limiterName)));
        }
        long deleted = delete(keys);
        List<String> forget = new ArrayList<>();
        exactNames.forEach(limiterName -> forget.add("=" + limiterName));
        for (String literal : keyPrefixes) {
            Predicate<String> others = othersUnder(limit, literal);
            deleted += deleteMatching(literal, others.negate());
            forget.add("^" + shared.naming.limiterNamePrefix(literal));
        }
        int confirmed = broadcast(Shared.RESET, forget);
        logger.info("Reset rate limit '" + limit + "' for every key" + (keyPrefixes.isEmpty() ? ""
                : " starting with " + LogSafe.text(String.join(", ", keyPrefixes))) + " (" + deleted
                + " Redis key(s) deleted, " + confirmed + " instance(s) confirmed) by " + who());
        return new ResetResult(limit, null, deleted, confirmed);
    }

    @Override
    public ResetResult resetAll() {
        if (shared.naming.style() == KeyStyle.PLAIN && shared.naming.prefix().isEmpty()) {
            throw new IllegalStateException("Cannot reset every limiter with ratelimit.key-style=plain and an empty "
                    + "ratelimit.key-prefix: every key of the Redis database would match; reset limits by name");
        }
        long deleted = deleteMatching("", limiterName -> true);
        int confirmed = broadcast(Shared.RESET, List.of("*"));
        logger.info("Reset every rate limiter under '" + LogSafe.text(shared.naming.prefix()) + "' (" + deleted
                + " Redis key(s) deleted, " + confirmed + " instance(s) confirmed) by " + who());
        return new ResetResult(null, null, deleted, confirmed);
    }

    @Override
    public LimitOverride override(String name, long rate, Duration interval, Long permits) {
        List<RateLimitOperation> operations = named(name);
        String limit = operations.get(0).name();
        LimitOverride override = new LimitOverride(limit, rate, interval, permits, actor, Instant.now());
        for (RateLimitOperation operation : operations) {
            if (override.permitsOf(operation) > rate) {
                throw new IllegalArgumentException("A rate of " + rate + " is below the " + operation.permits()
                        + " permits each call of " + operation.method() + " takes: give permits too, or a higher rate");
            }
        }
        LimitOverride before = shared.overrides.current().get(limit);
        overridesMap().fastPut(limit, encode(override));
        reloadOverrides().toCompletableFuture().join();
        int confirmed = broadcast(Shared.OVERRIDES, List.of());
        logger.info("Overrode rate limit '" + limit + "': " + (before != null ? before : operations.get(0).spec()
                + (operations.get(0).permits() == 1 ? "" : ", " + operations.get(0).permits() + " permit(s) a call"))
                + " -> " + override + " (" + confirmed + " instance(s) confirmed) by " + who() + keepWarning());
        return override;
    }

    @Override
    public boolean clearOverride(String name) {
        List<RateLimitOperation> operations = shared.declared.get().named(name);
        String limit = operations.isEmpty() ? name : operations.get(0).name();
        LimitOverride before = shared.overrides.current().get(limit);
        boolean removed = overridesMap().fastRemove(limit) > 0;
        reloadOverrides().toCompletableFuture().join();
        if (removed) {
            int confirmed = broadcast(Shared.OVERRIDES, List.of());
            logger.info("Removed the override " + (before != null ? "[" + before + "] " : "") + "of rate limit '"
                    + LogSafe.text(limit) + "', back to " + (operations.isEmpty() ? "its configuration"
                            : operations.get(0).spec()) + " (" + confirmed + " instance(s) confirmed) by " + who());
        }
        return removed;
    }

    @Override
    public void clearOverrides() {
        boolean removed = overridesMap().delete();
        reloadOverrides().toCompletableFuture().join();
        if (removed) {
            int confirmed = broadcast(Shared.OVERRIDES, List.of());
            logger.info("Removed every rate limit override (" + confirmed + " instance(s) confirmed) by " + who());
        }
    }

    @Override
    public Map<String, LimitOverride> overrides() {
        return shared.overrides.current();
    }

    /** The Redis hash that keeps the overrides. */
    public String overridesKey() {
        return shared.overridesKey;
    }

    private String who() {
        return actor != null ? "'" + LogSafe.text(actor) + "'" : "application code (no principal)";
    }

    private String keepWarning() {
        RedissonRateLimitBackend redis = redisBackend(backend());
        return redis != null && redis.getOptions().onConfigChange() == ConfigChangePolicy.KEEP
                ? "; ratelimit.on-config-change=keep: limiters that exist keep their stored config, only new ones "
                        + "get the override"
                : "";
    }

    private List<RateLimitOperation> named(String name) {
        Objects.requireNonNull(name, "name");
        List<RateLimitOperation> operations = shared.declared.get().named(name);
        if (operations.isEmpty()) {
            throw new IllegalArgumentException("No rate limit is named '" + LogSafe.text(name) + "'");
        }
        return operations;
    }

    private static String logicalKey(RateLimitOperation operation, String key) {
        if (key != null && !key.isEmpty()) {
            return key;
        }
        if (operation.key() != null) {
            throw new IllegalArgumentException("Rate limit '" + operation.name() + "' has a key per call ("
                    + operation.key().source() + "): give the key");
        }
        return operation.name();
    }

    /** Limiter names of other declared limits among those that start with {@code literal}. */
    private Predicate<String> othersUnder(String limit, String literal) {
        List<String> prefixes = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (RateLimitOperation other : shared.declared.get().operations()) {
            if (other.name().equals(limit)) {
                continue;
            }
            if (other.key() == null) {
                if (other.name().startsWith(literal)) {
                    names.add(shared.naming.limiterName(other.name()));
                }
                continue;
            }
            String otherLiteral = literalPrefix(other.key().source());
            if (otherLiteral.length() > literal.length() && otherLiteral.startsWith(literal)) {
                prefixes.add(shared.naming.limiterNamePrefix(otherLiteral));
            }
        }
        return limiterName -> names.contains(limiterName) || prefixes.stream().anyMatch(limiterName::startsWith);
    }

    /**
     * The literal beginning of a key expression: {@code order:submit:} for {@code 'order:submit:' + #userId}, the
     * whole text for a string literal, {@code ""} when it starts with anything else.
     */
    static String literalPrefix(String expression) {
        try {
            SpelNode ast = new SpelExpressionParser().parseRaw(expression).getAST();
            return literal(ast).text();
        }
        catch (RuntimeException ex) {
            return "";
        }
    }

    private static Literal literal(SpelNode node) {
        if (node instanceof StringLiteral string) {
            return new Literal(String.valueOf(string.getLiteralValue().getValue()), true);
        }
        if (node instanceof OpPlus && node.getChildCount() == 2) {
            Literal left = literal(node.getChild(0));
            if (!left.whole()) {
                return left;
            }
            Literal right = literal(node.getChild(1));
            return new Literal(left.text() + right.text(), right.whole());
        }
        return new Literal("", false);
    }

    private record Literal(String text, boolean whole) {
    }

    /** Deletes the keys of the limiters whose logical key starts with {@code literal} and {@code which} accepts. */
    private long deleteMatching(String literal, Predicate<String> which) {
        long deleted = 0;
        List<String> batch = new ArrayList<>(DELETE_BATCH);
        for (String pattern : shared.naming.keyPatterns(literal)) {
            for (String key : shared.redisson.getKeys().getKeysByPattern(pattern, SCAN_COUNT)) {
                String limiterName = shared.naming.limiterNameOf(key);
                if (limiterName == null || key.equals(shared.overridesKey) || !which.test(limiterName)) {
                    continue;
                }
                batch.add(key);
                if (batch.size() == DELETE_BATCH) {
                    deleted += delete(batch);
                    batch.clear();
                }
            }
        }
        return deleted + delete(batch);
    }

    /** One {@code DEL} per key, in one batch that Redisson splits by node. */
    private long delete(List<String> keys) {
        if (keys.isEmpty()) {
            return 0;
        }
        RBatch batch = shared.redisson.createBatch();
        for (String key : keys) {
            batch.getKeys().deleteAsync(key);
        }
        BatchResult<?> result = batch.execute();
        long deleted = 0;
        for (Object count : result.getResponses()) {
            deleted += ((Number) count).longValue();
        }
        return deleted;
    }

    /**
     * Tells every instance (this one too), and waits up to one second for those that received it to confirm.
     * @return how many confirmed
     */
    private int broadcast(String verb, List<String> arguments) {
        String id = UUID.randomUUID().toString();
        Confirmations confirmations = new Confirmations();
        shared.pending.put(id, confirmations);
        try {
            StringBuilder message = new StringBuilder(id).append(' ').append(verb);
            arguments.forEach(argument -> message.append('\n').append(argument));
            long receivers = shared.topic.publish(message.toString());
            int confirmed = confirmations.await(receivers, CONFIRMATION_TIMEOUT);
            if (confirmed < receivers) {
                logger.warn(confirmed + " of " + receivers + " instance(s) confirmed the rate limit " + verb
                        + " within " + CONFIRMATION_TIMEOUT.toMillis() + " ms; the others apply it when it reaches them");
            }
            return confirmed;
        }
        finally {
            shared.pending.remove(id);
        }
    }

    /** An event of any instance, on one of Redisson's threads: applied without blocking, then confirmed. */
    private void onMessage(String message) {
        int space = message.indexOf(' ');
        if (space < 0) {
            return;
        }
        String id = message.substring(0, space);
        String[] lines = message.substring(space + 1).split("\n");
        try {
            switch (lines[0]) {
                case Shared.CONFIRM -> {
                    Confirmations confirmations = shared.pending.get(id);
                    if (confirmations != null) {
                        confirmations.confirm();
                    }
                }
                case Shared.RESET -> {
                    forgetLocally(matcher(lines));
                    confirm(id);
                }
                case Shared.OVERRIDES -> reloadOverrides().whenComplete((done, ex) -> {
                    if (ex != null) {
                        logger.warn("Could not read the rate limit overrides from Redis", ex);
                    }
                    else {
                        confirm(id);
                    }
                });
                default -> logger.debug("Ignoring rate limit event " + LogSafe.text(message));
            }
        }
        catch (RuntimeException ex) {
            logger.warn("Could not apply rate limit event " + LogSafe.text(message), ex);
        }
    }

    private static Predicate<String> matcher(String[] lines) {
        Set<String> exact = new HashSet<>();
        List<String> prefixes = new ArrayList<>();
        boolean all = false;
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            if (line.equals("*")) {
                all = true;
            }
            else if (line.startsWith("=")) {
                exact.add(line.substring(1));
            }
            else if (line.startsWith("^")) {
                prefixes.add(line.substring(1));
            }
        }
        boolean every = all;
        return limiterName -> every || exact.contains(limiterName) || prefixes.stream().anyMatch(limiterName::startsWith);
    }

    private void confirm(String id) {
        shared.topic.publishAsync(id + " " + Shared.CONFIRM);
    }

    /** Reads the overrides from Redis and puts them in force here; forgets local rejections when they changed. */
    private CompletionStage<Void> reloadOverrides() {
        return overridesMap().readAllMapAsync().thenAccept(stored -> {
            Map<String, LimitOverride> parsed = new HashMap<>();
            stored.forEach((limit, value) -> {
                try {
                    parsed.put(limit, decode(limit, value));
                }
                catch (RuntimeException ex) {
                    logger.warn("Ignoring the override of rate limit '" + LogSafe.text(limit) + "' stored as '"
                            + LogSafe.text(value) + "' in " + shared.overridesKey + ": " + ex.getMessage());
                }
            });
            Set<String> changed = shared.overrides.replaceAll(parsed);
            if (!changed.isEmpty()) {
                // a raised limit makes remembered rejections too pessimistic; the next decisions ask Redis
                forgetLocally(limiterName -> true);
                for (String limit : changed) {
                    LimitOverride now = parsed.get(limit);
                    logger.info("Rate limit '" + LogSafe.text(limit) + "' is now " + (now == null
                            ? "as configured (override removed)" : now + " (override set by "
                                    + (now.by() == null ? "application code" : "'" + LogSafe.text(now.by()) + "'") + ")"));
                }
            }
        });
    }

    private RMap<String, String> overridesMap() {
        return shared.redisson.getMap(shared.overridesKey, StringCodec.INSTANCE);
    }

    /** {@code <rate> <interval ms> <permits or -> <epoch ms> <by, may be empty>}. */
    static String encode(LimitOverride override) {
        return override.rate() + " " + override.interval().toMillis() + " "
                + (override.permits() == null ? "-" : override.permits()) + " " + override.at().toEpochMilli() + " "
                + (override.by() == null ? "" : override.by());
    }

    static LimitOverride decode(String limit, String value) {
        String[] parts = value.split(" ", 5);
        if (parts.length < 4) {
            throw new IllegalArgumentException("expected '<rate> <interval ms> <permits or -> <epoch ms> <by>'");
        }
        String by = parts.length == 5 && !parts[4].isEmpty() ? parts[4] : null;
        return new LimitOverride(limit, Long.parseLong(parts[0]), Duration.ofMillis(Long.parseLong(parts[1])),
                parts[2].equals("-") ? null : Long.valueOf(parts[2]), by, Instant.ofEpochMilli(Long.parseLong(parts[3])));
    }

    private RateLimitBackend backend() {
        return shared.backend.get();
    }

    /** Makes this instance's backend forget the limiters {@code which} accepts. */
    private void forgetLocally(Predicate<String> which) {
        for (RateLimitBackend link : chain(backend())) {
            if (link instanceof LocalRejectionCache cache) {
                cache.forget(which);
            }
            else if (link instanceof RedissonRateLimitBackend redis) {
                redis.forget(which);
            }
        }
    }

    private static RedissonRateLimitBackend redisBackend(RateLimitBackend backend) {
        return chain(backend).stream().filter(RedissonRateLimitBackend.class::isInstance)
                .map(RedissonRateLimitBackend.class::cast).findFirst().orElse(null);
    }

    /** {@code backend} and the backends it wraps, as far as the project's decorators tell. */
    private static List<RateLimitBackend> chain(RateLimitBackend backend) {
        List<RateLimitBackend> chain = new ArrayList<>(4);
        RateLimitBackend current = backend;
        while (current != null && chain.size() < 16) {
            chain.add(current);
            current = current instanceof LocalRejectionCache cache ? cache.getDelegate()
                    : current instanceof ResilientRateLimitBackend resilient ? resilient.getDelegate()
                    : current instanceof WaitingRateLimitBackend waiting ? waiting.getDelegate() : null;
        }
        return chain;
    }

    private static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        }
        catch (CompletionException ex) {
            throw ex.getCause() instanceof RuntimeException cause ? cause : ex;
        }
    }

    /**
     * Re-reads the overrides whenever the subscription is established again (Redisson resubscribes after a lost
     * connection), so that an override published while this instance was cut off still reaches it.
     */
    private final class Resubscriptions implements StatusListener {

        @Override
        public void onSubscribe(String channel) {
            reloadOverrides().whenComplete((done, ex) -> {
                if (ex != null) {
                    logger.warn("Could not read the rate limit overrides from Redis after resubscribing", ex);
                }
            });
        }

        @Override
        public void onUnsubscribe(String channel) {
        }
    }

    /** What the views of {@link #by(String)} share. */
    private static final class Shared {

        static final String RESET = "reset";
        static final String OVERRIDES = "overrides";
        static final String CONFIRM = "ack";

        final RedissonClient redisson;
        final LimiterNaming naming;
        final Supplier<DeclaredRateLimits> declared;
        final LimitOverrides overrides;
        final Supplier<? extends RateLimitBackend> backend;
        final String overridesKey;
        final String channel;
        final RTopic topic;
        final Map<String, Confirmations> pending = new ConcurrentHashMap<>();
        volatile Integer listenerId;
        volatile Integer statusListenerId;

        Shared(RedissonClient redisson, LimiterNaming naming, Supplier<DeclaredRateLimits> declared,
                LimitOverrides overrides, Supplier<? extends RateLimitBackend> backend) {
            this.redisson = Objects.requireNonNull(redisson, "redisson");
            this.naming = Objects.requireNonNull(naming, "naming");
            this.declared = Objects.requireNonNull(declared, "declared");
            this.overrides = Objects.requireNonNull(overrides, "overrides");
            this.backend = Objects.requireNonNull(backend, "backend");
            this.overridesKey = naming.prefix() + "%overrides";
            this.channel = naming.prefix() + "%events";
            this.topic = redisson.getTopic(channel, StringCodec.INSTANCE);
        }
    }

    /** Confirmations of one event. */
    private static final class Confirmations {

        private int count;

        synchronized void confirm() {
            count++;
            notifyAll();
        }

        synchronized int await(long expected, Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            long left = timeout.toNanos();
            while (count < expected && left > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    break;
                }
                left = deadline - System.nanoTime();
            }
            return count;
        }
    }
}
