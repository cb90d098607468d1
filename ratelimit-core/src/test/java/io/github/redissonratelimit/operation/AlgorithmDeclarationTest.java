package io.github.redissonratelimit.operation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSourceTest.MapPolicies;

/** Pure logic: how the algorithm, burst and calendar period of a limit resolve and are validated at startup. */
class AlgorithmDeclarationTest {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    static class Service {
        @RateLimit(name = "plain", rate = 10, interval = 60)
        public void plain() {
        }

        @RateLimit(name = "bucket", rate = 10, interval = 1, algorithm = RateLimitAlgorithm.TOKEN_BUCKET)
        public void bucket() {
        }

        @RateLimit(name = "burst", rate = 10, algorithm = RateLimitAlgorithm.TOKEN_BUCKET, burst = 50, permits = 40)
        public void burst() {
        }

        @RateLimit(name = "fixed", rate = 10, interval = 60, algorithm = RateLimitAlgorithm.FIXED_WINDOW)
        public void fixed() {
        }

        @RateLimit(name = "daily", rate = 1000, calendar = CalendarPeriod.DAY)
        public void daily() {
        }

        @RateLimit(name = "burst-sliding", rate = 10, burst = 20)
        public void burstWithoutBucket() {
        }

        @RateLimit(name = "sliding-daily", rate = 10, calendar = CalendarPeriod.DAY,
                algorithm = RateLimitAlgorithm.SLIDING_WINDOW)
        public void slidingCalendar() {
        }

        @RateLimit(name = "bucket-daily", rate = 10, calendar = CalendarPeriod.DAY,
                algorithm = RateLimitAlgorithm.TOKEN_BUCKET)
        public void bucketCalendar() {
        }

        @RateLimit(name = "daily-interval", rate = 10, interval = 60, calendar = CalendarPeriod.DAY)
        public void calendarAndInterval() {
        }

        @RateLimit(name = "daily-window", rate = 10, window = "1m", calendar = CalendarPeriod.DAY)
        public void calendarAndWindow() {
        }

        @RateLimit(name = "small-bucket", rate = 10, algorithm = RateLimitAlgorithm.TOKEN_BUCKET, burst = 2,
                permits = 3)
        public void permitsAboveBurst() {
        }

        @RateLimit(name = "negative-burst", rate = 10, algorithm = RateLimitAlgorithm.TOKEN_BUCKET, burst = -1)
        public void negativeBurst() {
        }

        @RateLimit(name = "api", key = "#apiKey", rate = 10, calendar = CalendarPeriod.MONTH, tier = "#plan")
        public void tiered(String apiKey, String plan) {
        }

        @RateLimit(name = "exports", key = "#tenant", rate = 3, algorithm = RateLimitAlgorithm.IN_FLIGHT)
        public void export(String tenant) {
        }

        @RateLimit(name = "uploads", rate = 5, interval = 10, algorithm = RateLimitAlgorithm.IN_FLIGHT)
        public void upload() {
        }

        @RateLimit(name = "short-lease", rate = 5, window = "500ms", algorithm = RateLimitAlgorithm.IN_FLIGHT)
        public void shortLease() {
        }

        @RateLimit(name = "charged-flight", rate = 5, algorithm = RateLimitAlgorithm.IN_FLIGHT,
                chargeWhen = "#exception == null")
        public void chargedInFlight() {
        }

        @RateLimit(name = "burst-flight", rate = 5, algorithm = RateLimitAlgorithm.IN_FLIGHT, burst = 10)
        public void burstInFlight() {
        }
    }

    private static RateLimitOperation operation(Map<String, PolicyValues> policies, PolicyValues defaults,
            String method) {
        java.lang.reflect.Method target = Arrays.stream(Service.class.getMethods())
                .filter(m -> m.getName().equals(method)).findFirst().orElseThrow();
        List<RateLimitOperation> operations = new AnnotationRateLimitOperationSource(new KeyExpressionParser(),
                new MapPolicies(policies, defaults, false)).getOperations(target, Service.class);
        assertThat(operations).hasSize(1);
        return operations.get(0);
    }

    private static RateLimitOperation operation(String method) {
        return operation(Map.of(), PolicyValues.NONE, method);
    }

    private static PolicyValues policy(Long rate, Duration interval, AlgorithmValues algorithm) {
        return new PolicyValues(rate, interval, null, null, true, null, null, Map.of(), algorithm);
    }

    private static PolicyValues defaults(RateLimitAlgorithm algorithm, ZoneId zone) {
        return new PolicyValues(null, null, null, null, null, null, null, Map.of(),
                new AlgorithmValues(algorithm, null, null, zone));
    }

    private static InvalidRateLimitException failure(Map<String, PolicyValues> policies, String method) {
        try {
            operation(policies, PolicyValues.NONE, method);
        }
        catch (InvalidRateLimitException ex) {
            return ex;
        }
        throw new AssertionError("expected " + method + " to be refused");
    }

    @Test
    void theAnnotationChoosesTheAlgorithm() {
        assertThat(operation("plain").spec().algorithm()).isEqualTo(LimitAlgorithm.SLIDING_WINDOW);
        assertThat(operation("bucket").spec()).isEqualTo(new LimitSpec(10, Duration.ofSeconds(1),
                io.github.redissonratelimit.annotation.RateLimitMode.OVERALL, LimitAlgorithm.tokenBucket(10)));
        assertThat(operation("burst").spec().algorithm()).isEqualTo(LimitAlgorithm.tokenBucket(50));
        assertThat(operation("burst").permits()).as("permits up to the burst, above the rate").isEqualTo(40);
        assertThat(operation("fixed").spec().algorithm()).isEqualTo(LimitAlgorithm.fixedWindow());
    }

    @Test
    void aCalendarQuotaIsAFixedWindowOfThePeriodsLongestLengthInUtcUnlessAZoneIsConfigured() {
        LimitSpec daily = operation("daily").spec();
        assertThat(daily.algorithm()).isEqualTo(LimitAlgorithm.fixedWindow(CalendarPeriod.DAY, CalendarPeriod.DEFAULT_ZONE));
        assertThat(daily.interval()).isEqualTo(Duration.ofDays(1));

        assertThat(operation(Map.of(), defaults(null, BERLIN), "daily").spec().algorithm()).isEqualTo(
                LimitAlgorithm.fixedWindow(CalendarPeriod.DAY, BERLIN));
        assertThat(operation(Map.of("daily", policy(null, null, new AlgorithmValues(null, null, null, BERLIN))),
                defaults(null, ZoneId.of("Asia/Tokyo")), "daily").spec().algorithm()).isEqualTo(
                LimitAlgorithm.fixedWindow(CalendarPeriod.DAY, BERLIN));
    }

    @Test
    void theDefaultsAlgorithmAppliesToLimitsThatChooseNoneButACalendarImpliesTheFixedWindow() {
        PolicyValues buckets = defaults(RateLimitAlgorithm.TOKEN_BUCKET, null);
        assertThat(operation(Map.of(), buckets, "plain").spec().algorithm()).isEqualTo(LimitAlgorithm.tokenBucket(10));
        assertThat(operation(Map.of(), buckets, "fixed").spec().algorithm()).isEqualTo(LimitAlgorithm.fixedWindow());
        assertThat(operation(Map.of(), buckets, "daily").spec().algorithm().type())
                .isEqualTo(RateLimitAlgorithm.FIXED_WINDOW);
        assertThat(operation(Map.of(), buckets, "plain").source()).isEqualTo("annotation+defaults");
    }

    @Test
    void aPolicyOverridesTheAlgorithmBurstAndWindow() {
        RateLimitOperation bucket = operation(Map.of("plain", policy(null, null,
                new AlgorithmValues(RateLimitAlgorithm.TOKEN_BUCKET, 25L, null, null))), PolicyValues.NONE, "plain");
        assertThat(bucket.spec().algorithm()).isEqualTo(LimitAlgorithm.tokenBucket(25));
        assertThat(bucket.spec().interval()).isEqualTo(Duration.ofSeconds(60));

        RateLimitOperation monthly = operation(Map.of("plain", policy(5000L, null,
                new AlgorithmValues(null, null, CalendarPeriod.MONTH, BERLIN))), PolicyValues.NONE, "plain");
        assertThat(monthly.spec()).as("the policy's period replaces the declared interval").isEqualTo(new LimitSpec(
                5000, Duration.ofDays(31), io.github.redissonratelimit.annotation.RateLimitMode.OVERALL,
                LimitAlgorithm.fixedWindow(CalendarPeriod.MONTH, BERLIN)));

        RateLimitOperation hourly = operation(Map.of("daily", policy(null, Duration.ofHours(1),
                new AlgorithmValues(RateLimitAlgorithm.FIXED_WINDOW, null, null, null))), PolicyValues.NONE, "daily");
        assertThat(hourly.spec().interval()).as("the policy's interval replaces the declared period")
                .isEqualTo(Duration.ofHours(1));
        assertThat(hourly.spec().algorithm()).isEqualTo(LimitAlgorithm.fixedWindow());

        RateLimitOperation backToSliding = operation(Map.of("daily", policy(null, Duration.ofHours(1),
                AlgorithmValues.NONE)), PolicyValues.NONE, "daily");
        assertThat(backToSliding.spec().algorithm()).isEqualTo(LimitAlgorithm.SLIDING_WINDOW);
    }

    @Test
    void aBurstNeedsATokenBucket() {
        InvalidRateLimitException declared = failure(Map.of(), "burstWithoutBucket");
        assertThat(declared.getAttribute()).isEqualTo("burst");
        assertThat(declared.getMessage()).contains("Service.burstWithoutBucket()", "SLIDING_WINDOW",
                "only a token bucket has a burst").contains("set algorithm to TOKEN_BUCKET");

        InvalidRateLimitException configured = failure(Map.of("plain", policy(null, null,
                new AlgorithmValues(null, 20L, null, null))), "plain");
        assertThat(configured.getAttribute()).isEqualTo("ratelimit.policies.plain.burst");

        InvalidRateLimitException fixed = failure(Map.of("bucket", policy(null, null,
                new AlgorithmValues(RateLimitAlgorithm.FIXED_WINDOW, 20L, null, null))), "bucket");
        assertThat(fixed.getMessage()).contains("ratelimit.policies.bucket.algorithm is FIXED_WINDOW");

        assertThat(failure(Map.of(), "negativeBurst").getProblem()).contains("must be greater than 0 but was -1");
    }

    @Test
    void anInFlightLimitsIntervalIsItsLeasePeriodOf30SecondsUnlessSet() {
        assertThat(operation("export").spec()).isEqualTo(new LimitSpec(3, Duration.ofSeconds(30),
                io.github.redissonratelimit.annotation.RateLimitMode.OVERALL, LimitAlgorithm.IN_FLIGHT));
        assertThat(operation("upload").spec().interval()).isEqualTo(Duration.ofSeconds(10));

        InvalidRateLimitException tooShort = failure(Map.of(), "shortLease");
        assertThat(tooShort.getAttribute()).isEqualTo("interval");
        assertThat(tooShort.getProblem()).contains("the lease period", "at least PT1S", "PT0.5S");

        InvalidRateLimitException charged = failure(Map.of(), "chargedInFlight");
        assertThat(charged.getAttribute()).isEqualTo("chargeWhen");
        assertThat(charged.getFix()).contains("remove chargeWhen");

        InvalidRateLimitException burst = failure(Map.of(), "burstInFlight");
        assertThat(burst.getAttribute()).isEqualTo("burst");
        assertThat(burst.getProblem()).contains("IN_FLIGHT", "only a token bucket has a burst");
    }

    @Test
    void aCalendarNeedsTheFixedWindow() {
        InvalidRateLimitException sliding = failure(Map.of(), "slidingCalendar");
        assertThat(sliding.getAttribute()).isEqualTo("calendar");
        assertThat(sliding.getProblem()).contains("algorithm is SLIDING_WINDOW", "only a fixed window follows the calendar");
        assertThat(sliding.getFix()).contains("FIXED_WINDOW");
        assertThat(failure(Map.of(), "bucketCalendar").getProblem()).contains("TOKEN_BUCKET");

        InvalidRateLimitException configured = failure(Map.of("bucket", policy(null, null,
                new AlgorithmValues(null, null, CalendarPeriod.WEEK, null))), "bucket");
        assertThat(configured.getAttribute()).isEqualTo("ratelimit.policies.bucket.calendar");
        assertThat(configured.getProblem()).contains("algorithm is TOKEN_BUCKET");
    }

    @Test
    void aCalendarIsNotSetTogetherWithAnInterval() {
        InvalidRateLimitException interval = failure(Map.of(), "calendarAndInterval");
        assertThat(interval.getAttribute()).isEqualTo("calendar");
        assertThat(interval.getProblem()).contains("together with interval");
        assertThat(interval.getFix()).contains("remove the interval");
        assertThat(failure(Map.of(), "calendarAndWindow").getProblem()).contains("together with window");

        InvalidRateLimitException policy = failure(Map.of("plain", policy(null, Duration.ofMinutes(5),
                new AlgorithmValues(null, null, CalendarPeriod.DAY, null))), "plain");
        assertThat(policy.getAttribute()).isEqualTo("ratelimit.policies.plain.interval");
        assertThat(policy.getProblem()).contains("quota per DAY", "ratelimit.policies.plain.calendar");
    }

    @Test
    void aZoneNeedsACalendarQuota() {
        InvalidRateLimitException zone = failure(Map.of("plain", policy(null, null,
                new AlgorithmValues(null, null, null, BERLIN))), "plain");
        assertThat(zone.getAttribute()).isEqualTo("ratelimit.policies.plain.zone");
        assertThat(zone.getProblem()).contains("not a calendar quota");
        assertThat(operation(Map.of(), defaults(null, BERLIN), "plain").spec().algorithm())
                .as("a default zone is for the calendar quotas only").isEqualTo(LimitAlgorithm.SLIDING_WINDOW);
    }

    @Test
    void fixedPermitsMustFitTheCapacity() {
        InvalidRateLimitException bucket = failure(Map.of(), "permitsAboveBurst");
        assertThat(bucket.getAttribute()).isEqualTo("permits");
        assertThat(bucket.getProblem()).contains("(3) exceeds burst (2)");
        assertThat(bucket.getFix()).contains("raise burst");

        InvalidRateLimitException policy = failure(Map.of("burst", policy(null, null,
                new AlgorithmValues(null, 30L, null, null))), "burst");
        assertThat(policy.getProblem()).contains("(40) exceeds ratelimit.policies.burst.burst (30)");
    }

    @Test
    void tiersChangeTheBurstButShareTheAlgorithm() {
        PolicyValues gold = new PolicyValues(100L, null, null, null, null, null, null, Map.of(),
                new AlgorithmValues(null, 500L, null, null));
        PolicyValues buckets = new PolicyValues(null, null, null, null, true, null, null, Map.of("gold", gold),
                new AlgorithmValues(RateLimitAlgorithm.TOKEN_BUCKET, 20L, CalendarPeriod.NONE, null));
        RateLimitOperation api = operation(Map.of("api", buckets), PolicyValues.NONE, "tiered");
        assertThat(api.spec().algorithm()).as("calendar NONE in the policy ends the declared calendar quota")
                .isEqualTo(LimitAlgorithm.tokenBucket(20));
        assertThat(api.spec().interval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(api.tiers().operations().get("gold").spec().algorithm()).isEqualTo(LimitAlgorithm.tokenBucket(500));

        PolicyValues hourly = new PolicyValues(null, Duration.ofHours(1), null, null, null, null, null, Map.of(),
                null);
        PolicyValues monthly = new PolicyValues(null, null, null, null, true, null, null, Map.of("gold", hourly),
                null);
        InvalidRateLimitException ex = failure(Map.of("api", monthly), "tiered");
        assertThat(ex.getAttribute()).isEqualTo("tier");
        assertThat(ex.getProblem()).contains("'gold' counts with a sliding window",
                "fixed window per month in UTC");
    }
}
