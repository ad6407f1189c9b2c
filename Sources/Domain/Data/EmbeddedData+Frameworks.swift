extension EmbeddedData {
    /// Real Apple frameworks with their documentation pages, as seed 001's `AppleFramework.list`.
    package static let frameworks: [AppleFramework] = [
        ("SwiftUI", "Declare the user interface and behavior of your app on every Apple platform."),
        ("UIKit", "Construct and manage a graphical, event-driven user interface for iOS and tvOS apps."),
        ("Combine", "Customize handling of asynchronous events by combining event-processing operators."),
        ("Foundation", "Access essential data types, collections, and operating-system services."),
        ("SwiftData", "Write your model code declaratively to add managed persistence and iCloud sync."),
        ("Core Data", "Persist or cache data on a single device, or sync data to multiple devices with CloudKit."),
        ("CloudKit", "Store structured app and user data in iCloud containers shared by all users of your app."),
        ("ARKit", "Integrate hardware sensing features to produce augmented reality apps and games."),
        ("RealityKit", "Simulate and render 3D content for use in your augmented reality apps."),
        ("Core ML", "Integrate machine learning models into your app."),
        ("Vision", "Apply computer vision algorithms to perform a variety of tasks on input images and video."),
        ("MapKit", "Display map or satellite imagery within your app, call out points of interest."),
        ("Core Location", "Obtain the geographic location and orientation of a device."),
        ("HealthKit", "Access and share health and fitness data while maintaining the user's privacy."),
        ("AVFoundation", "Work with audiovisual assets, control device cameras, process audio, and more."),
        ("Metal", "Render advanced 3D graphics and compute data in parallel with graphics processors."),
        ("SpriteKit", "Add high-performance 2D content with smooth animations to your app, or create a game."),
        ("SceneKit", "Create 3D games and add 3D content to apps using high-level scene descriptions."),
        ("GameKit", "Enable players to interact with friends, compare leaderboard ranks, and earn achievements."),
        ("StoreKit", "Support in-app purchases and interactions with the App Store."),
        ("WidgetKit", "Extend the reach of your app by creating widgets, watch complications, and Live Activities."),
        ("App Intents", "Make your app's content and actions discoverable with system experiences like Siri."),
        ("User Notifications", "Push user-facing notifications to the user's device from a server, or locally."),
        ("Natural Language", "Analyze natural language text and deduce its language-specific metadata."),
    ].map { name, description in
        let slug = name.lowercased().filter { $0 != " " }
        return AppleFramework(
            name: name,
            imageName: slug,
            urlString: "https://developer.apple.com/documentation/\(slug)",
            description: description
        )
    }
}
