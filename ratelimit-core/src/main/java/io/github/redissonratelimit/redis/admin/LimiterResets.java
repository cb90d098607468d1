package io.github.redissonratelimit.redis.admin;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.OpPlus;
import org.springframework.expression.spel.ast.StringLiteral;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import io.github.redissonratelimit.admin.RateLimiters;
import io.github.redissonratelimit.admin.RateLimiters.ResetResult;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.naming.KeyStyle;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.CallerKey;
import io.github.redissonratelimit.operation.DeclaredRateLimits;
import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * The resets of {@link RedissonRateLimiters}: they delete keys, one limiter's directly (its keys share a hash
 * slot), a limit's or every limiter's found with {@code SCAN} on every master (Redisson's key iteration) and
 * deleted in batches of single-key {@code DEL}s, which Redisson sends to each key's node, so they work on a
 * cluster; then every instance is told to forget the limiters.
 */
final class LimiterResets {

    private static final Log logger = LogFactory.getLog(RateLimiters.class);

    private static final int SCAN_COUNT = 1_000;
    private static final int DELETE_BATCH = 500;

    private final RedissonClient redisson;
    private final LimiterNaming naming;
    private final Supplier<DeclaredRateLimits> declared;
    private final String overridesKey;
    private final LimitEvents events;

    LimiterResets(RedissonClient redisson, LimiterNaming naming, Supplier<DeclaredRateLimits> declared,
            String overridesKey, LimitEvents events) {
        this.redisson = redisson;
        this.naming = naming;
        this.declared = declared;
        this.overridesKey = overridesKey;
        this.events = events;
    }

    /** Resets the limiter of {@code logicalKey} under the limit of {@code operations}. */
    ResetResult resetCaller(List<RateLimitOperation> operations, String logicalKey, String who) {
        RateLimitOperation first = operations.get(0);
        String limiterName = naming.limiterName(logicalKey);
        List<String> keys = new ArrayList<>(List.of(limiterName, LimiterNaming.valueKey(limiterName),
                LimiterNaming.permitsKey(limiterName)));
        if (operations.stream().anyMatch(operation -> operation.spec().mode() == RateLimitMode.PER_CLIENT)) {
            for (String perClient : List.of(LimiterNaming.valueKey(limiterName), LimiterNaming.permitsKey(limiterName))) {
                redisson.getKeys().getKeysByPattern(LimiterNaming.glob(perClient) + ":*", SCAN_COUNT)
                        .forEach(keys::add);
            }
        }
        long deleted = delete(keys);
        int confirmed = events.broadcast(LimitEvents.RESET, List.of("=" + limiterName));
        logger.info("Reset rate limit '" + first.name() + "' for key '" + LogSafe.text(logicalKey) + "' (limiter "
                + LogSafe.text(limiterName) + ", " + deleted + " Redis key(s) deleted, " + confirmed
                + " instance(s) confirmed) by " + who);
        return new ResetResult(first.name(), logicalKey, deleted, confirmed);
    }

    /** Resets every limiter of the limit of {@code operations}. */
    ResetResult resetLimit(List<RateLimitOperation> operations, String who) {
        String limit = operations.get(0).name();
        Set<String> exactNames = new LinkedHashSet<>();
        Set<String> keyPrefixes = new LinkedHashSet<>();
        for (RateLimitOperation operation : operations) {
            if (operation.callerKey() != null) {
                keyPrefixes.add(callerPrefix(operation));
                continue;
            }
            if (operation.key() == null) {
                exactNames.add(naming.limiterName(operation.name()));
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
            forget.add("^" + naming.limiterNamePrefix(literal));
        }
        int confirmed = events.broadcast(LimitEvents.RESET, forget);
        logger.info("Reset rate limit '" + limit + "' for every key" + (keyPrefixes.isEmpty() ? ""
                : " starting with " + LogSafe.text(String.join(", ", keyPrefixes))) + " (" + deleted
                + " Redis key(s) deleted, " + confirmed + " instance(s) confirmed) by " + who);
        return new ResetResult(limit, null, deleted, confirmed);
    }

    /** Resets every limiter under the key prefix. */
    ResetResult resetAll(String who) {
        if (naming.style() == KeyStyle.PLAIN && naming.prefix().isEmpty()) {
            throw new IllegalStateException("Cannot reset every limiter with ratelimit.key-style=plain and an empty "
                    + "ratelimit.key-prefix: every key of the Redis database would match; reset limits by name");
        }
        long deleted = deleteMatching("", limiterName -> true);
        int confirmed = events.broadcast(LimitEvents.RESET, List.of("*"));
        logger.info("Reset every rate limiter under '" + LogSafe.text(naming.prefix()) + "' (" + deleted
                + " Redis key(s) deleted, " + confirmed + " instance(s) confirmed) by " + who);
        return new ResetResult(null, null, deleted, confirmed);
    }

    /**
     * The beginning of every logical key of a limit keyed outside a method: what its scope puts before the key
     * ({@code api:}), then the literal beginning of its key expression.
     */
    private static String callerPrefix(RateLimitOperation operation) {
        CallerKey callerKey = operation.callerKey();
        String beginning = callerKey.prefix() + literalPrefix(callerKey.source());
        if (beginning.isEmpty()) {
            throw new IllegalArgumentException("Rate limit '" + operation.name() + "' keys its callers by "
                    + callerKey.source() + " in a shared scope, and that key does not start with a literal: its "
                    + "limiters are named by the key's value alone, like those of every limit whose key gives the "
                    + "same value, so they cannot be told apart from other limits'. Reset its callers one by one "
                    + "with their key (?key=... on the actuator endpoint), or give the limit limiters of its own "
                    + "(key-scope: route in " + operation.source() + ")");
        }
        return beginning;
    }

    /** Limiter names of other declared limits among those that start with {@code literal}. */
    private Predicate<String> othersUnder(String limit, String literal) {
        List<String> prefixes = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (RateLimitOperation other : declared.get().operations()) {
            if (other.name().equals(limit)) {
                continue;
            }
            if (other.key() == null && other.callerKey() == null) {
                if (other.name().startsWith(literal)) {
                    names.add(naming.limiterName(other.name()));
                }
                continue;
            }
            String otherLiteral = other.callerKey() != null
                    ? other.callerKey().prefix() + literalPrefix(other.callerKey().source())
                    : literalPrefix(other.key().source());
            if (otherLiteral.length() > literal.length() && otherLiteral.startsWith(literal)) {
                prefixes.add(naming.limiterNamePrefix(otherLiteral));
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
        for (String pattern : naming.keyPatterns(literal)) {
            for (String key : redisson.getKeys().getKeysByPattern(pattern, SCAN_COUNT)) {
                String limiterName = naming.limiterNameOf(key);
                if (limiterName == null || key.equals(overridesKey) || !which.test(limiterName)) {
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
        RBatch batch = redisson.createBatch();
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
}
