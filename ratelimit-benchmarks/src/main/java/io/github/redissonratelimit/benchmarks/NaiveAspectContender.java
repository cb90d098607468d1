package io.github.redissonratelimit.benchmarks;

/** (c) The hand-rolled aspect. */
final class NaiveAspectContender implements Contender {

    private final NaiveService service;

    NaiveAspectContender(NaiveService service) {
        this.service = service;
    }

    @Override
    public String id() {
        return "c";
    }

    @Override
    public String description() {
        return "hand-rolled `@Aspect` from blog posts: new `SpelExpressionParser` + parse, `trySetRate`, `tryAcquire` per call";
    }

    @Override
    public boolean decide(int user) {
        try {
            service.decide(Users.id(user));
            return true;
        }
        catch (NaiveRateLimitAspect.NaiveRateLimitExceededException ex) {
            return false;
        }
    }
}
