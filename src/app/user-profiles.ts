import { userProfilesPath } from "../project/project-paths.js";
import { UserProfileDatabase } from "../store/user-profile-database.js";

/**
 * `$SYLK_HOME/profiles.db` for one conversation, opened on first use and
 * shared by what learns about the user (the handoff profiles, the retrieval
 * profile). A file that cannot be opened leaves learning per project
 * working; the user-wide part catches up when it opens again.
 */
export class UserProfiles {
  private database: UserProfileDatabase | null | undefined;

  constructor(private readonly sylkHome: string) {}

  get(): UserProfileDatabase | undefined {
    if (this.database === undefined) {
      try {
        this.database = UserProfileDatabase.open(userProfilesPath(this.sylkHome));
      } catch {
        this.database = null;
      }
    }
    return this.database ?? undefined;
  }

  close(): void {
    this.database?.close();
    this.database = undefined;
  }
}
