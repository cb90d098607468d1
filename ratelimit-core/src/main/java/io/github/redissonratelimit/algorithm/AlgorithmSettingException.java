package io.github.redissonratelimit.algorithm;

/**
 * Settings of a limit's algorithm that cannot work together; each caller turns it into its own startup error
 * (naming the method, the property or the gateway route).
 */
public class AlgorithmSettingException extends IllegalArgumentException {

    private final String origin;
    private final String problem;
    private final String fix;

    AlgorithmSettingException(String origin, String problem, String fix) {
        super(origin + " " + problem + ". Fix: " + fix);
        this.origin = origin;
        this.problem = problem;
        this.fix = fix;
    }

    /** The setting at fault, as the declaration names it. */
    public String getOrigin() {
        return origin;
    }

    /** What is wrong with it, to follow its name: {@code "(5) is set, but ..."}. */
    public String getProblem() {
        return problem;
    }

    /** What to do about it. */
    public String getFix() {
        return fix;
    }
}
