package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.redissonratelimit.test.RunsAlone;
import io.github.redissonratelimit.test.redis.FreshRedis;

/**
 * Each algorithm's fast-path script ({@code acquire-sliding.lua}, {@code acquire-bucket.lua},
 * {@code acquire-window.lua}), with what the backend does when it answers -4 (the call sent again as the full acquire
 * script), decides exactly as the full script alone: the same reply and the same keys, byte for byte, after every
 * step of a seeded walk over generated states (see {@link FastPathPair}). A walk makes random calls of random permits,
 * declared configs that change under every check ('-', 'u', 'r', 'k'), the other type, calls over the limit, time
 * passing in parts of the algorithm's period (so that grants, refills and windows meet their edges), refunds of the
 * last grant, and changes from outside: another algorithm taking the limiter over, lost keys, values of another
 * form, RRateLimiter's own grants and releases; a fixed window also calendar bounds from a caller's clock that is
 * off, by up to more than a window. The caller's clock stamps every call, so both limiters see the same times; the
 * keys' expiry is Redis's own, which is why it runs alone: on a busy machine a key expired in one limiter and not yet
 * in the other.
 */
@RunsAlone
class FastPathEquivalenceTest {

    private static final int STEPS = 1_200;

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void theSlidingWindowsFastPathDecidesAsTheFullScript(long seed) {
        Walk walk = walk(seed, new FastPathWalkers.Sliding(new Random(seed), seed));
        // the cases left to the full script were met too, or the comparison says little about them
        assertThat(walk.fellBack).as("calls left to the full script (seed %d)", seed).isBetween(20, walk.decided / 2);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void theTokenBucketsFastPathDecidesAsTheFullScript(long seed) {
        Walk walk = walk(seed, new FastPathWalkers.Bucket(new Random(seed), seed));
        assertThat(walk.fellBack).as("calls left to the full script (seed %d)", seed).isBetween(20, walk.decided / 2);
        assertThat(walk.refunded).as("refunds that gave back (seed %d)", seed).isGreaterThan(5);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void theFixedWindowsFastPathDecidesAsTheFullScript(long seed) {
        Walk walk = walk(seed, new FastPathWalkers.Window(new Random(seed), seed));
        assertThat(walk.fellBack).as("calls left to the full script (seed %d)", seed).isBetween(20, walk.decided / 2);
        assertThat(walk.refunded).as("refunds that gave back (seed %d)", seed).isGreaterThan(5);
        if (seed % 2 == 1) { // a calendar quota
            assertThat(walk.stale).as("calls whose bounds were stale (seed %d)", seed).isGreaterThan(5);
        }
    }

    /** What a walk met. */
    private static final class Walk {
        int decided;
        int granted;
        int refused;
        int fellBack;
        int refunded;
        int stale;
    }

    private Walk walk(long seed, FastPathWalkers.Walker walker) {
        Random random = walker.random;
        Walk walk = new Walk();
        String what = "start";
        int step = 0;
        try (FastPathPair pair = new FastPathPair(fresh.endpoint(), walker.fastPath())) {
            long now = 1_700_000_000_009L; // the last ms of a 10 ms slice: the slices' stamps land on the edge too
            String[] refund = null; // the last grant's refund: permits, type, receipt
            for (; step < STEPS; step++) {
                int kind = random.nextInt(100);
                if (kind < 62) {
                    String argument = walker.argument(now, step);
                    what = "acquire " + argument;
                    int fellBackBefore = pair.fellBack();
                    List<?> reply = pair.acquire(argument, "step " + step + " (seed " + seed + "): " + what);
                    walker.replied(reply);
                    walk.decided++;
                    walk.fellBack += pair.fellBack() - fellBackBefore;
                    long first = ((Number) reply.get(0)).longValue();
                    if (first == 0) {
                        walk.granted++;
                        refund = new String[] {walker.grantPermits(), walker.declaredType(), receipt(reply)};
                    }
                    else if (first == -5) {
                        walk.stale++;
                    }
                    else {
                        walk.refused++;
                    }
                }
                else if (kind < 84) {
                    now += walker.advance();
                    what = "time " + now;
                }
                else if (kind < 90 && refund != null) {
                    what = "refund " + String.join(" ", refund);
                    Object reply = pair.refund("step " + step + " (seed " + seed + "): " + what, refund[0],
                            Long.toString(now), refund[1], refund[2]);
                    walk.refunded += Long.valueOf(1).equals(reply) ? 1 : 0;
                    refund = null;
                }
                else {
                    what = walker.outside(now, pair);
                }
                pair.assertSameState("state after step " + step + " (seed " + seed + "): " + what);
            }
        }
        catch (RuntimeException | AssertionError failure) {
            throw new AssertionError("seed " + seed + ", step " + step + " (" + what + "): " + failure.getMessage(),
                    failure);
        }
        assertThat(walk.decided).as("decisions (seed %d)", seed).isGreaterThan(STEPS / 2);
        assertThat(walk.granted).as("grants (seed %d)", seed).isGreaterThan(STEPS / 10);
        assertThat(walk.refused).as("refusals (seed %d)", seed).isGreaterThan(STEPS / 50);
        return walk;
    }

    /** What a refund of the grant names, as AcquireScript.Reply reads it, else none. */
    private static String receipt(List<?> reply) {
        String receipt = reply.size() >= 3 ? AcquireScript.Reply.parse(reply).receipt() : null;
        return receipt == null ? "" : receipt;
    }
}
