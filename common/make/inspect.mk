# make sanitize / make profile / make sass — filled in by the inspection tooling (issue 8).
