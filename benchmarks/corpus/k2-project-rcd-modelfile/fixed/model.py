from keras.models import Sequential
from keras.layers import Dense, Dropout


def build_classifier(n_features, n_classes):
    model = Sequential()
    model.add(Dense(64, activation='relu', input_dim=n_features))
    model.add(Dropout(0.2))
    model.add(Dense(32, activation='relu'))
    model.add(Dense(n_classes, activation='softmax'))
    return model
