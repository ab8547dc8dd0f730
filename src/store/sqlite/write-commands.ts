import type Database from 'better-sqlite3';
import { writeAgentSpans } from './agent-span-writes.js';
import * as auth from './auth-writes.js';
import * as calls from './call-writes.js';
import * as files from './file-writes.js';
import { callIndexerStep } from './index-writes.js';
import * as objects from './object-writes.js';
import { migrate } from './sqlite-migrate.js';
import { reclaimFreePages } from './space-writes.js';
import * as tables from './table-writes.js';
import * as tx from './tx-writes.js';

/**
 * Every write the SQLite store makes, by name. The writer connection lives in the writer thread,
 * so a write crosses to it as a name and plain arguments (structured-cloned), never as a closure.
 */
export const WRITE_COMMANDS = {
  migrate,
  'calls.write': calls.writeCallParts,
  'calls.deleteCascade': calls.deleteCallsCascade,
  'calls.indexNames': calls.callIndexNames,
  'calls.analyzeIndex': calls.analyzeIndex,
  'callText.step': callIndexerStep,
  'agentSpans.write': writeAgentSpans,
  'auth.ensureUser': auth.ensureUser,
  'auth.addMembership': auth.addMembership,
  'auth.createApiKey': auth.createApiKey,
  'auth.revokeApiKey': auth.revokeApiKey,
  'auth.setMembershipRole': auth.setMembershipRole,
  'auth.createSession': auth.createSession,
  'auth.deleteSession': auth.deleteSession,
  'auth.ensureProject': auth.ensureProject,
  'objects.create': objects.createObjectVersion,
  'objects.delete': objects.deleteObjectVersions,
  'objects.addTags': objects.addObjectTags,
  'objects.removeTags': objects.removeObjectTags,
  'objects.setAliases': objects.setObjectAliases,
  'objects.removeAliases': objects.removeObjectAliases,
  'files.stageChunk': files.stageFileChunk,
  'files.commitUpload': files.commitFileUpload,
  'files.discardUpload': files.discardFileUpload,
  'tables.create': tables.createTable,
  'tx.run': tx.runTransaction,
  'space.reclaim': reclaimFreePages,
} satisfies Record<string, (db: Database.Database, args: never) => unknown>;

export type WriteCommands = typeof WRITE_COMMANDS;
export type WriteName = keyof WriteCommands;
/** The arguments of a command (`undefined` for commands that take none). */
export type WriteArgs<K extends WriteName> = Parameters<WriteCommands[K]> extends [unknown, infer A] ? A : undefined;
export type WriteResult<K extends WriteName> = ReturnType<WriteCommands[K]>;
