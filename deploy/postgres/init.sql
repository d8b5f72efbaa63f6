-- Druid keeps its own metadata in the same PostgreSQL server, in a database of its own.
CREATE USER druid WITH PASSWORD 'druid';
CREATE DATABASE druid OWNER druid;
