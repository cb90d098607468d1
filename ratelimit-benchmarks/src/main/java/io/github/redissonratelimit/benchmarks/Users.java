package io.github.redissonratelimit.benchmarks;

/** The user ids the load spreads over: each decision is for one of them, in turn. */
final class Users {

    static final int COUNT = 256;

    private static final String[] IDS = new String[COUNT];

    static {
        for (int i = 0; i < COUNT; i++) {
            IDS[i] = "user-" + i;
        }
    }

    private Users() {
    }

    static String id(int user) {
        return IDS[user];
    }
}
