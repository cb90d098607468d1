package io.github.redissonratelimit.benchmarks;

import java.time.Duration;

import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.springframework.expression.ExpressionParser;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * (c) The baseline people copy: per call it parses the SpEL key with a new parser, binds the arguments by
 * name, configures the limiter ({@code trySetRate}) and then takes a permit ({@code tryAcquire}).
 */
@Aspect
public class NaiveRateLimitAspect {

    private final RedissonClient redisson;

    public NaiveRateLimitAspect(RedissonClient redisson) {
        this.redisson = redisson;
    }

    @Around("@annotation(limit)")
    public Object limit(ProceedingJoinPoint joinPoint, NaiveRateLimit limit) throws Throwable {
        MethodSignature signature = (MethodSignature) joinPoint.getSignature();
        String[] names = signature.getParameterNames();
        Object[] args = joinPoint.getArgs();
        StandardEvaluationContext context = new StandardEvaluationContext();
        for (int i = 0; i < names.length; i++) {
            context.setVariable(names[i], args[i]);
        }
        ExpressionParser parser = new SpelExpressionParser();
        String key = parser.parseExpression(limit.key()).getValue(context, String.class);

        RRateLimiter limiter = redisson.getRateLimiter("naive:" + key);
        limiter.trySetRate(RateType.OVERALL, limit.rate(), Duration.ofSeconds(limit.interval()));
        if (!limiter.tryAcquire()) {
            throw new NaiveRateLimitExceededException(key);
        }
        return joinPoint.proceed();
    }

    public static final class NaiveRateLimitExceededException extends RuntimeException {

        NaiveRateLimitExceededException(String key) {
            super("Too many requests for " + key);
        }
    }
}
